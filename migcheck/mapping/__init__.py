"""Weight mapping: which torch parameter each MindSpore parameter receives, and in what layout.

transfer (the mapping and the conversion both ways) <- rules (a case's weight_map), layer_rules (built-in
layer renames), structure (what is left, paired by family, shapes and order), pairing (ambiguities settled
by activations), diagnosis (structure problems read as port bugs), suggest (`migcheck map --suggest`),
mapped (one item's mapping, as the pipeline builds it). Pure except pairing/mapped, which call the runners.
"""
