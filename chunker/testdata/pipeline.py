"""Data pipeline helpers for the nightly export job."""

import csv
import logging
from dataclasses import dataclass, field
from typing import Iterable, Iterator

log = logging.getLogger(__name__)

BATCH_SIZE = 500


@dataclass
class Record:
    """One exported row."""

    id: int
    name: str
    tags: list[str] = field(default_factory=list)

    def to_row(self) -> list[str]:
        return [str(self.id), self.name, ";".join(self.tags)]


class Exporter:
    """Writes records to CSV in batches."""

    def __init__(self, path: str, batch_size: int = BATCH_SIZE):
        self.path = path
        self.batch_size = batch_size
        self._written = 0

    # export writes every record and returns how many were written.
    def export(self, records: Iterable[Record]) -> int:
        with open(self.path, "w", newline="") as fh:
            writer = csv.writer(fh)
            for batch in batched(records, self.batch_size):
                writer.writerows(r.to_row() for r in batch)
                self._written += len(batch)
                log.debug("wrote batch of %d", len(batch))
        return self._written

    @property
    def written(self) -> int:
        return self._written


def batched(items: Iterable[Record], size: int) -> Iterator[list[Record]]:
    """Yield lists of at most size items."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def retry(times: int):
    def decorator(fn):
        def wrapper(*args, **kwargs):
            for attempt in range(times):
                try:
                    return fn(*args, **kwargs)
                except OSError:
                    log.warning("attempt %d failed", attempt + 1)
            return fn(*args, **kwargs)

        return wrapper

    return decorator


if __name__ == "__main__":
    exp = Exporter("/tmp/out.csv")
    n = exp.export([Record(1, "a"), Record(2, "b", ["x"])])
    print(f"exported {n} records")
