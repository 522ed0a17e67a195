"""The matchup graph draws each agent's whole label inside its panel: a label with parameters
(`MyBot[depth=3]`) or a long one is never cut by the panel's edge or left outside its node."""
import networkx as nx
import pytest

from arena.reports import graphs

LABELS = ["MyBot[depth=3]", "ismcts[iterations=5000,exploration=1.4]", "greedy", "a-rather-long-label-for-a-bot"]


def graph(labels):
    g = nx.DiGraph(cycles=[])
    g.add_nodes_from(labels, in_cycle=False)
    for a, b in zip(labels, labels[1:] + labels[:1]):
        g.add_edge(a, b, win_rate=0.7, low=0.45, high=0.85, confident=False, in_cycle=False)
    return g


@pytest.mark.parametrize("labels", [LABELS[:2], LABELS], ids=["two", "four"])
def test_each_label_is_whole_inside_the_panel(labels):
    fig = graphs.figure([("insert", graph(labels))])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    panel = ax.get_window_extent(renderer)
    texts = {t.get_text().replace("\n", ""): t for t in ax.texts}
    for label in labels:
        assert label in texts, (label, list(texts))
        shown = texts[label]
        box = (shown.get_bbox_patch() or shown).get_window_extent(renderer)
        assert panel.x0 <= box.x0 and box.x1 <= panel.x1 and panel.y0 <= box.y0 and box.y1 <= panel.y1, \
            (label, box, panel)
        assert not shown.get_clip_on() or shown.get_clip_box() is None or \
            shown.get_clip_box().x0 <= box.x0 and box.x1 <= shown.get_clip_box().x1
