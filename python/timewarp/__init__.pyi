# Typing stubs of the package `timewarp` (implementation: __init__.py).
import os
from typing import Any, Dict, List, Mapping, Optional, Union

from ._timewarp import RunError as RunError

__version__: str

_Path = Union[str, "os.PathLike[str]"]

def models() -> Dict[str, str]: ...
def options(model: str) -> List[Dict[str, Any]]: ...
def tokens(model: Optional[str], **options: Any) -> List[str]: ...

class Run:
    args: List[str]
    stats: Dict[str, Any]
    def __init__(self, args: List[str], stats: Dict[str, Any]) -> None: ...
    @property
    def digest(self) -> str: ...
    @property
    def results(self) -> Any: ...
    @property
    def config(self) -> Dict[str, Any]: ...
    @property
    def samples(self) -> Any: ...  # pandas.DataFrame with pandas, else List[Dict[str, Any]]
    @property
    def jobs(self) -> List[Dict[str, Any]]: ...
    @property
    def command(self) -> str: ...
    def to_json(self, path: Optional[_Path] = ...) -> str: ...
    def plot(self, path: Optional[_Path] = ..., **options: Any) -> str: ...
    def report(self, path: Optional[_Path] = ...) -> str: ...

def run(
    model: Optional[str] = ...,
    *,
    sync: Optional[str] = ...,
    threads: Optional[int] = ...,
    seed: Optional[int] = ...,
    quiet: bool = ...,
    progress: Optional[bool] = ...,
    **options: Any,
) -> Run: ...
def effective_config(model: Optional[str] = ..., **options: Any) -> str: ...
def resume(checkpoint: _Path, *, quiet: bool = ..., progress: Optional[bool] = ..., **options: Any) -> Run: ...

class Verification:
    args: List[str]
    stats: Dict[str, Any]
    def __init__(self, args: List[str], stats: Dict[str, Any]) -> None: ...
    @property
    def identical(self) -> bool: ...
    @property
    def divergence(self) -> Optional[str]: ...
    @property
    def digest(self) -> str: ...
    def __bool__(self) -> bool: ...

def verify(
    model: Optional[str] = ...,
    *,
    sync: Optional[str] = ...,
    threads: Optional[int] = ...,
    seed: Optional[int] = ...,
    quiet: bool = ...,
    **options: Any,
) -> Verification: ...

def sweep(
    model: str,
    grid: Optional[Mapping[str, Any]] = ...,
    *,
    zip: Optional[Mapping[str, Any]] = ...,
    repeats: Optional[int] = ...,
    sync: Optional[str] = ...,
    threads: Optional[int] = ...,
    seed: Optional[int] = ...,
    **options: Any,
) -> Any: ...  # pandas.DataFrame with pandas, else List[Dict[str, Any]]

class Curve:
    points: Any
    csv_path: str
    plots: List[str]
    def __init__(self, points: Any, csv_path: str, plots: List[str]) -> None: ...
    @property
    def saturation(self) -> Optional[float]: ...
    @property
    def saturation_throughput(self) -> Optional[float]: ...
    @property
    def unstable(self) -> List[float]: ...
    def plot(self) -> List[str]: ...

def curve(
    model: str = ...,
    *,
    load: str,
    output: Optional[_Path] = ...,
    sample_period: Optional[float] = ...,
    max_end: Optional[float] = ...,
    refine: Optional[int] = ...,
    threshold: Optional[float] = ...,
    **options: Any,
) -> Curve: ...
