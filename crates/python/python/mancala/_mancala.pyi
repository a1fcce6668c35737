"""Type stubs of the Rust extension module (see each class's docstring)."""

from os import PathLike
from typing import Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

#: The player id of a finished game, as OpenSpiel's.
TERMINAL: int

class Game:
    """The rules of one game, from a game spec such as ``"kalah:pits=6,seeds=4,pie=true"``."""

    def __init__(self, spec: str) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def pits(self) -> int: ...
    @property
    def total_seeds(self) -> int: ...
    def new_initial_state(self) -> State: ...
    def state_from(self, notation: str) -> State: ...
    def num_distinct_actions(self) -> int: ...
    def observation_shape(self) -> tuple[int]: ...
    def num_players(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class State:
    """One position of a game and the actions that led to it."""

    def get_game(self) -> Game: ...
    def current_player(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def legal_actions(self) -> list[int]: ...
    def legal_actions_mask(self) -> npt.NDArray[np.bool_]: ...
    def apply_action(self, action: int) -> None: ...
    def clone(self) -> State: ...
    def returns(self) -> list[float]: ...
    def margin(self) -> int: ...
    def scores(self) -> list[int]: ...
    def rows(self) -> list[list[int]]: ...
    def observation_tensor(self, player: Optional[int] = None) -> npt.NDArray[np.float32]: ...
    def to_notation(self) -> str: ...
    def history(self) -> list[int]: ...
    def action_to_string(self, action: int) -> str: ...
    def string_to_action(self, text: str) -> int: ...
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: object) -> State: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class SearchInfo(TypedDict):
    kind: Optional[str]
    nodes: int
    depth: int
    value: Optional[float]
    share: Optional[float]
    pv: list[int]
    seconds: float

class Agent:
    """An agent from any agent spec of the command line."""

    def __init__(self, spec: str, seed: int = 0) -> None: ...
    @property
    def name(self) -> str: ...
    def new_game(self, seed: Optional[int] = None) -> None: ...
    def choose(self, state: State) -> int: ...
    def info(self) -> SearchInfo: ...

class Solution(TypedDict):
    player: int
    value: int
    moves: dict[int, int]
    best: list[int]
    pv: list[int]
    nodes: int
    seconds: float

def solve(
    state: State,
    *,
    threads: Optional[int] = None,
    tt: Optional[int] = None,
    db_seeds: Optional[int] = None,
    db_dir: Union[str, PathLike[str], None] = None,
    db_cache: bool = True,
    timeout: Optional[float] = None,
) -> Solution: ...
def clear_solver() -> None: ...

class ExactPositions(TypedDict):
    observations: npt.NDArray[np.float32]
    legal: npt.NDArray[np.bool_]
    move_values: npt.NDArray[np.int32]
    values: npt.NDArray[np.int32]
    best: npt.NDArray[np.bool_]
    players: npt.NDArray[np.int8]
    plies: npt.NDArray[np.int32]
    positions: list[str]

def exact_positions(
    game: Union[Game, str],
    count: int,
    seed: int = 1,
    *,
    agents: Optional[Sequence[str]] = None,
    opening_plies: int = 2,
    threads: Optional[int] = None,
    tt: int = 256,
    db_seeds: Optional[int] = None,
    db_dir: Union[str, PathLike[str], None] = None,
    db_cache: bool = True,
) -> ExactPositions: ...

StepArrays = tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.int8],
]

class VectorGame:
    """``n`` games held in Rust and stepped together."""

    def __init__(
        self,
        spec: str,
        n: int,
        seed: int = 0,
        *,
        auto_reset: bool = True,
        opening_plies: int = 0,
        threads: Optional[int] = None,
    ) -> None: ...
    def __len__(self) -> int: ...
    @property
    def spec(self) -> str: ...
    def reset(self) -> StepArrays: ...
    def step(self, actions: npt.ArrayLike) -> StepArrays: ...
    def state(self, i: int) -> State: ...

def _restore_state(spec: str, notation: Optional[str], history: Sequence[int]) -> State: ...
def _tournament(
    config: str,
    is_table: bool,
    output: Optional[str] = None,
    threads: Optional[int] = None,
    resume: bool = False,
    fresh: bool = False,
    report: bool = True,
) -> Tuple[str, str, Optional[str], Optional[str]]: ...
