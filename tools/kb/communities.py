"""Community detection shared by the Ontology graph (cases) and the statute entity graph (Law GraphRAG)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


def leiden(n: int, edges: Sequence[tuple[int, int, float]], resolution: float, seed: int = 0) -> list[int]:
    """Community of each node by Leiden (RB configuration, weighted, deterministic seed)."""
    import igraph
    import leidenalg

    graph = igraph.Graph(n=n, edges=[(i, j) for i, j, _ in edges], directed=False)
    graph.es["weight"] = [w for _, _, w in edges]
    partition = leidenalg.find_partition(
        graph, leidenalg.RBConfigurationVertexPartition, weights="weight", resolution_parameter=resolution, seed=seed
    )
    return list(partition.membership)


@dataclass
class Cluster:
    """One community of a hierarchy: level 0 is the coarsest; ``parent`` is the index of the enclosing one."""

    level: int
    members: list[int]
    parent: int | None = None
    children: list[int] = field(default_factory=list)


def hierarchical_leiden(
    n: int, edges: Sequence[tuple[int, int, float]], max_cluster_size: int, max_levels: int, seed: int = 0
) -> list[Cluster]:
    """Leiden communities, then Leiden again inside every community larger than ``max_cluster_size``, down to
    ``max_levels`` levels (as graspologic's hierarchical_leiden does for GraphRAG). Isolated nodes form
    singleton communities so that every node belongs to one community per level it reaches."""
    clusters: list[Cluster] = []
    _split(list(range(n)), edges, 0, None, clusters, max_cluster_size, max_levels, seed)
    return clusters


def _split(
    nodes: list[int],
    edges: Sequence[tuple[int, int, float]],
    level: int,
    parent: int | None,
    out: list[Cluster],
    max_size: int,
    max_levels: int,
    seed: int,
) -> None:
    local = {node: i for i, node in enumerate(nodes)}
    inner = [(local[a], local[b], w) for a, b, w in edges if a in local and b in local]
    membership = leiden(len(nodes), inner, resolution=1.0, seed=seed) if inner else list(range(len(nodes)))
    groups: dict[int, list[int]] = {}
    for node, community in zip(nodes, membership, strict=True):
        groups.setdefault(community, []).append(node)
    if parent is not None and len(groups) == 1:
        return  # Leiden cannot split it further: the parent is a leaf
    for members in sorted(groups.values(), key=lambda m: (-len(m), m[0])):
        index = len(out)
        out.append(Cluster(level=level, members=sorted(members), parent=parent))
        if parent is not None:
            out[parent].children.append(index)
        if len(members) > max_size and level + 1 < max_levels:
            _split(members, inner_edges(members, edges), level + 1, index, out, max_size, max_levels, seed)


def inner_edges(members: Sequence[int], edges: Sequence[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """The edges with both ends among ``members``."""
    chosen = set(members)
    return [(a, b, w) for a, b, w in edges if a in chosen and b in chosen]
