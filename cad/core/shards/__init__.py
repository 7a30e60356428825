"""Corpus stages split by document into shards, run in parallel on this machine or on a Dask cluster.

A stage's corpus is cut into shards of whole documents (`plan`), each shard's slice of the
inputs is fingerprinted and given to one task (`run`), whose output is kept in a shard directory
beside the stage's output with a completion marker (`store`); the stage then merges the shard
outputs in shard order. Shard boundaries depend only on the corpus and the shard size, never on
the number of workers, so the output is the same bytes whatever runs the tasks; a rerun after an
interruption reuses the shards whose fingerprint still matches.
"""

from cad.core.shards.options import Parallel, add_parallel_arguments, parallel_from_args
from cad.core.shards.plan import Shard, ShardTask, fingerprint_salt, plan_shards, shard_tasks
from cad.core.shards.run import run_shards
from cad.core.shards.store import ShardStore

__all__ = ["Parallel", "Shard", "ShardStore", "ShardTask", "add_parallel_arguments", "fingerprint_salt",
           "parallel_from_args", "plan_shards", "run_shards", "shard_tasks"]
