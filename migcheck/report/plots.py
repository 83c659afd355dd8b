"""Error plots for the HTML report, drawn from a tensor's ErrorSample alone (no arrays, no frameworks).

matplotlib's object API with the Agg canvas: no pyplot, so no global figure state and no GUI
backend. Imported only when a report is written, so `migcheck --help` never pays for it.
"""
from __future__ import annotations

import io
from functools import lru_cache
from typing import Optional, Sequence

from migcheck.judging.compare import ErrorSample, TensorComparison

PANEL_W, PANEL_H, DPI = 3.9, 2.8, 96  # inches per panel, and pixels per inch: about 375 x 270 px a panel
BAR = "#3b6ea8"
TOL = "#c0392b"


def available() -> Optional[str]:
    """None when plots can be drawn, else why not (matplotlib is missing)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        return f"plots need matplotlib ({exc}); pip install matplotlib"
    return None


def error_png(tensor: TensorComparison) -> Optional[bytes]:
    """One PNG for a failing tensor: histogram of |ms - pt|, where the error sits, and per-channel maxima."""
    if tensor.error_sample is None:
        return None
    return _render(tensor.error_sample, float(tensor.atol))


@lru_cache(maxsize=512)  # PYNATIVE and GRAPH usually fail identically: draw each sample once per process
def _render(sample: ErrorSample, atol: float) -> bytes:
    from matplotlib.figure import Figure

    panels = 1 + bool(sample.map) + bool(sample.channel_max)
    fig = Figure(figsize=(PANEL_W * panels, PANEL_H), dpi=DPI)
    # Fixed margins: matplotlib's constrained layout would triple the drawing time.
    fig.subplots_adjust(left=0.6 / (PANEL_W * panels), right=1 - 0.15 / panels, bottom=0.17, top=0.88,
                        wspace=0.42)
    axes = fig.subplots(1, panels, squeeze=False)[0]
    _histogram(axes[0], sample, atol)
    if sample.map:
        if len(sample.map_axes) == 1:
            _strip(axes[1], sample, atol)
        else:
            _heat_map(fig, axes[1], sample)
    if sample.channel_max:
        _channels(axes[-1], sample, atol)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return _palette(buffer.getvalue())


def _palette(png: bytes) -> bytes:
    """The PNG with 64 colours (Pillow, which matplotlib depends on; its fast octree keeps the heat map's colour
    scale, and takes 16% fewer bytes than 128 median-cut colours): about a quarter of the bytes for these flat
    plots, so a report with many failing tensors stays small. The plot as drawn when Pillow cannot."""
    try:
        from PIL import Image
    except ImportError:
        return png
    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=64, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue() if out.tell() < len(png) else png


def _histogram(ax, s: ErrorSample, atol: float) -> None:
    extra = [f"{s.zero} exact" if s.zero else "", f"{s.nonfinite} NaN/Inf differ" if s.nonfinite else ""]
    extra_text = ", ".join(e for e in extra if e)
    ax.set_title("|ms − pt| histogram" + (f" ({extra_text})" if extra_text else ""), fontsize=9, y=1.01)
    if not s.hist_counts:
        ax.text(0.5, 0.5, "no finite error to show", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    edges = list(s.hist_edges)
    if edges[0] >= edges[-1]:  # every error the same: give the single bar some width
        edges = [edges[0] / 1.25, edges[-1] * 1.25]
    ax.stairs(s.hist_counts, edges, fill=True, color=BAR)
    ax.set_xscale("log")
    _plain_labels(ax.xaxis)
    nonzero = [c for c in s.hist_counts if c]
    if nonzero and max(nonzero) > 50 * min(nonzero):
        ax.set_yscale("log")
        _plain_labels(ax.yaxis)
    ax.minorticks_off()  # log axes' minor ticks cost more to lay out than the whole plot
    if atol > 0:
        ax.axvline(atol, color=TOL, linestyle="--", linewidth=1, label=f"atol {atol:g}")
        ax.legend(fontsize=7, loc="upper left")
    ax.set_xlabel("absolute error", fontsize=8)
    ax.set_ylabel("elements", fontsize=8)
    ax.tick_params(labelsize=7)


def _norm(values: Sequence[float]):
    from matplotlib.colors import LogNorm, Normalize

    positive = [v for v in values if v > 0]
    if not positive:
        return Normalize(0.0, 1.0)
    lo, hi = min(positive), max(positive)
    return LogNorm(lo, hi) if hi > 100 * lo else Normalize(0.0, hi)


def _heat_map(fig, ax, s: ErrorSample) -> None:
    import numpy as np

    data = np.array(s.map, dtype=float)
    rows_axis, cols_axis = s.map_axes
    br, bc = s.map_block
    norm = _norm(data.ravel().tolist())
    shown = np.where(data > 0, data, np.nan)  # no error at all: drawn as the 'bad' colour
    cmap = _cmap().with_extremes(bad="#e8e8e8")
    # Cell (r, c) spans tensor indices [r*br, (r+1)*br) x [c*bc, (c+1)*bc): integer ticks fall on indices.
    image = ax.imshow(shown, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest",
                      extent=(-0.5, data.shape[1] * bc - 0.5, data.shape[0] * br - 0.5, -0.5))
    for r, c in s.map_nonfinite:
        ax.plot((c + 0.5) * bc - 0.5, (r + 0.5) * br - 0.5, marker="x", color="#00a0c0", markersize=7,
                markeredgewidth=2)
    _integer_ticks(ax)
    reduced = f"max over axes {', '.join(str(a) for a in range(rows_axis))}; " if rows_axis else ""
    block = f"{br}x{bc} elements per cell" if (br, bc) != (1, 1) else "one element per cell"
    ax.set_title(f"where: max |ms − pt| ({reduced}{block})", fontsize=9, y=1.01)
    ax.set_ylabel(f"axis {rows_axis}", fontsize=8)
    ax.set_xlabel(f"axis {cols_axis}" + ("   (x: NaN/Inf differ)" if s.map_nonfinite else ""), fontsize=8)
    ax.tick_params(labelsize=7)
    bar = fig.colorbar(image, ax=ax, fraction=0.08, pad=0.03)
    bar.ax.tick_params(labelsize=7)
    bar.ax.minorticks_off()


def _strip(ax, s: ErrorSample, atol: float) -> None:
    values = list(s.map[0])
    (block,) = s.map_block
    _bars(ax, values, block, atol)
    ax.set_title("where: max |ms − pt| by index" + (f" ({block} per bar)" if block > 1 else ""), fontsize=9, y=1.01)
    ax.set_xlabel("axis 0" + ("   (x: NaN/Inf differ)" if s.map_nonfinite else ""), fontsize=8)
    for _, c in s.map_nonfinite:
        ax.plot((c + 0.5) * block - 0.5, 0, marker="x", color="#00a0c0", markersize=7, markeredgewidth=2, clip_on=False)


def _channels(ax, s: ErrorSample, atol: float) -> None:
    _bars(ax, list(s.channel_max), s.channel_block, atol)
    per = f", {s.channel_block} channels per bar" if s.channel_block > 1 else ""
    ax.set_title(f"per channel (axis {s.channel_axis}): max |ms − pt|{per}", fontsize=9, y=1.01)
    ax.set_xlabel(f"axis {s.channel_axis}", fontsize=8)


def _bars(ax, values: Sequence[float], block: int, atol: float) -> None:
    # Bar i covers indices [i*block, (i+1)*block): centred there, so integer ticks fall on indices.
    positions = [i * block + (block - 1) / 2 for i in range(len(values))]
    ax.bar(positions, values, width=block * 0.85, color=BAR)
    positive = [v for v in values if v > 0]
    if positive and max(positive) > 100 * min(positive):
        ax.set_yscale("log")
        _plain_labels(ax.yaxis)
        ax.minorticks_off()
    _integer_ticks(ax, y=False)
    if atol > 0 and positive and atol <= max(positive) * 10:
        ax.axhline(atol, color=TOL, linestyle="--", linewidth=1, label=f"atol {atol:g}")
        ax.legend(fontsize=7, loc="upper right")
    ax.set_xlim(-0.5, len(values) * block - 0.5)
    ax.set_ylabel("max abs error", fontsize=8)
    ax.tick_params(labelsize=7)


def _plain_labels(axis) -> None:
    """Tick labels such as 1e-05 instead of matplotlib's mathtext powers, which take longer to typeset
    than the rest of the figure."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))


def _integer_ticks(ax, y: bool = True) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
    if y:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))


def _cmap():
    from matplotlib import colormaps

    return colormaps["viridis"]
