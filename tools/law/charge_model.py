"""The charge scorer's fitted policy as data (``charge_model.json``, written by ``jurisgraph fit charges``):
the logistic model over a candidate's signals, the ranking depth it was fitted at and the probabilities
further charges need."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tools.fitted import read_fitted
from tools.law.charge_scores import ChargeModel

BUNDLED_CHARGE_MODEL = Path(__file__).with_name("charge_model.json")
BUNDLED_OFFENCE_FLOOR = Path(__file__).with_name("offence_floor.json")


@dataclass(frozen=True)
class ChargePolicy:
    """How the scorer turns signals into the charges it proposes."""

    model: ChargeModel
    depth: int
    """Depth of the Researcher's fused ranking whose charges are candidates (their rank a signal)."""
    threshold: float
    """Probability a whole-fact candidate besides the best needs to be convicted too."""
    act_threshold: float
    """Probability the best charge of one act (of a fact telling several) needs to be convicted too."""
    floor: float
    """Probability a charge the Adjudicator adds to the proposal needs to stand."""
    stated_threshold: float
    """Probability a candidate needs to fill the count of charges the fact states (数罪并罚, 以××和××追究)."""
    stand_in: float
    """Probability a candidate needs to stand in for an act offence whose act the fact never tells."""


@lru_cache(maxsize=1)
def fitted_charge_policy() -> ChargePolicy:
    """The shipped policy."""
    values = read_fitted(BUNDLED_CHARGE_MODEL)
    model = ChargeModel({k: float(v) for k, v in values["weights"].items()}, float(values["bias"]))
    return ChargePolicy(
        model,
        int(values["depth"]),
        float(values["threshold"]),
        float(values["act_threshold"]),
        float(values["floor"]),
        float(values["stated_threshold"]),
        float(values["stand_in"]),
    )


@dataclass(frozen=True)
class OffenceFloor:
    """The least offence coverage a fact needs to be convicted at all: the offence index's score
    (:meth:`tools.retrieval.offence.OffenceIndex.search`) of the best article defining a proposed charge."""

    coverage: float


@lru_cache(maxsize=1)
def fitted_offence_floor() -> OffenceFloor:
    """The shipped floor (``offence_floor.json``, written by ``benchmarks/offence_floor.py`` with its provenance)."""
    return OffenceFloor(float(read_fitted(BUNDLED_OFFENCE_FLOOR)["coverage"]))
