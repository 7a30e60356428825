#!/bin/bash
# make large's sharded stages on a Dask cluster, on the large model's own corpus (not copies):
#   bench/dask_real_corpus.sh [MODEL_DIR] [TABLES_DIR] [WORK_DIR]   (defaults: models/large tables/large bench/out/dask)
# starts a `dask scheduler` and two single-threaded `dask worker` processes on this machine, runs each stage
# with --scheduler, then the CM build and coreference on a slice in one process (--workers 1), and compares
# every output with what `make large` wrote (its local worker processes): SAME or DIFF per file, with the
# wall time and peak RSS of each run. Needs `make large` first; about 35 min on two cores.
set -u
M=$(realpath "${1:-models/large}")
TB=$(realpath "${2:-tables/large}")
D=$(realpath -m "${3:-bench/out/dask}")
H=$(realpath "${HANSARD:-../shared/data/en-fr/hansard/train}")
REPO=$(cd "$(dirname "$0")/.." && pwd)
CAD="$REPO/.venv/bin/python -m cad"
PORT=${DASK_PORT:-8786}
mkdir -p "$D"
cd "$REPO"
# Dask's statistical profiler grows a busy worker's memory (cad --help says so)
export DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False
T() { local name=$1; shift; /usr/bin/time -f "$name: %e s, peak RSS %M KB" "$@" 2>> "$D/$name.log"; tail -n 1 "$D/$name.log"; }
same() { if cmp -s <(zcat -f "$1") <(zcat -f "$2"); then echo "  SAME $1"; else echo "  DIFF $1 $2"; fi; }
"$REPO/.venv/bin/dask" scheduler --host 127.0.0.1 --port "$PORT" --no-dashboard > "$D/scheduler.log" 2>&1 &
SCHED=$!
WORKERS=()
trap 'kill $SCHED "${WORKERS[@]}" 2>/dev/null' EXIT
sleep 5
for i in 1 2; do
  "$REPO/.venv/bin/dask" worker "tcp://127.0.0.1:$PORT" --nworkers 1 --nthreads 1 --no-dashboard --name "w$i" \
    > "$D/worker$i.log" 2>&1 &
  WORKERS+=($!)
done
sleep 10
S="--scheduler tcp://127.0.0.1:$PORT"
T prepare-dask $CAD prepare --src "$H.en.gz" --tgt "$H.fr.gz" --docs "$H.docs" --src-lang en --tgt-lang fr \
  --no-lowercase --allow-empty --out "$D/hansard" $S
for f in en fr docs; do same "$M/hansard.$f" "$D/hansard.$f"; done
T prepare-one $CAD prepare --src "$H.en.gz" --tgt "$H.fr.gz" --docs "$H.docs" --src-lang en --tgt-lang fr \
  --no-lowercase --allow-empty --out "$D/hansard1" --workers 1
for f in en fr docs; do same "$M/hansard.$f" "$D/hansard1.$f"; done
rm -f "$D"/hansard*.{en,fr,docs,lines}
T coref-dask $CAD -q coref --backend ranker --input "$M/cm-corpus.en" --docs "$M/cm-corpus.docs" \
  --out "$D/corpus.coref.jsonl" $S
same "$M/corpus.coref.jsonl" "$D/corpus.coref.jsonl"
T cm-dask $CAD -q cm build --corpus "$M/cm-corpus" --align "$M/cm-corpus.aligned" --coref "$M/corpus.coref.jsonl" \
  --out "$D/cm" $S
for f in cm.gz classes.gz classifier.json; do same "$TB/$f" "$D/cm/$f"; done
T extract-dask $CAD -q extract --src "$M/corpus.en" --tgt "$M/corpus.fr" --align "$M/aligned.grow-diag-final-and" \
  --lex "$M/lex" --phrase-table "$D/pt.gz" --reordering-table "$D/ro.gz" $S
same "$M/phrase-table.gz" "$D/pt.gz"
same "$M/reordering-table.wbe-msd-bidirectional-fe.gz" "$D/ro.gz"
rm -f "$D/pt.gz" "$D/ro.gz"
T cm-one $CAD -q cm build --corpus "$M/cm-corpus" --align "$M/cm-corpus.aligned" --coref "$M/corpus.coref.jsonl" \
  --out "$D/cm1" --workers 1
for f in cm.gz classes.gz classifier.json; do same "$TB/$f" "$D/cm1/$f"; done
# coreference in one process on the documents that start before line 20,000 (whole documents)
n=$(awk -F '\t' '$1 >= 20000 { print $1; exit }' "$M/cm-corpus.docs")
head -n "$n" "$M/cm-corpus.en" > "$D/slice.en"
awk -F '\t' -v n="$n" '$1 < n' "$M/cm-corpus.docs" > "$D/slice.docs"
T coref-one $CAD -q coref --backend ranker --input "$D/slice.en" --docs "$D/slice.docs" --out "$D/slice.coref.jsonl" \
  --workers 1
"$REPO/.venv/bin/python" - "$D/slice.coref.jsonl" "$M/corpus.coref.jsonl" <<'PY'
import json, sys
mine = open(sys.argv[1], encoding="utf-8").readlines()
docs = max(int(json.loads(line)["doc"]) for line in mine) + 1
full = [line for line in open(sys.argv[2], encoding="utf-8") if int(json.loads(line)["doc"]) < docs]
print(f"  {'SAME' if full == mine else 'DIFF'} coreference of the first {docs} documents ({len(mine)} records)")
PY
