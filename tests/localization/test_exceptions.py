"""MindSpore's exception messages read as causes (pure: the messages are MindSpore 2.10's own, as captured)."""
from migcheck.localization.exceptions import classify

NO_KERNEL_GRAPH = ("- Kernel select failed:\nUnsupported op [GeluExt] on CPU, Please confirm whether the device"
                   " target setting is correct")
NO_KERNEL_PYNATIVE = "The kernel GeluExt unregistered.\n\n- C++ Call Stack: (For framework developers)"
SHAPES = "For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2], but got 3 and 2.\n\n----"
ARGS = "For 'Conv2D', the 'pad' must be zero when 'pad_mode' is not 'pad', but got 'pad': 1 and 'pad_mode': same."


def test_no_kernel_names_the_operator_and_the_device():
    for text in (NO_KERNEL_GRAPH, NO_KERNEL_PYNATIVE):
        found = classify(text, "cpu")
        assert (found.rule, found.op) == ("no-kernel", "GeluExt") and "no GeluExt kernel on CPU" in found.cause


def test_shapes_and_arguments_quote_the_operator():
    shapes, args = classify(SHAPES, "cpu"), classify(ARGS, "cpu")
    assert (shapes.rule, shapes.op) == ("op-shapes", "MatMulExt") and "but got 3 and 2" in shapes.said
    assert (args.rule, args.op) == ("op-arguments", "Conv2D") and "'pad_mode' is not 'pad'" in args.said


def test_a_message_that_states_no_cause_gets_none():
    assert classify("something went wrong", "cpu") is None
    assert classify("ValueError: x", "cpu") is None
