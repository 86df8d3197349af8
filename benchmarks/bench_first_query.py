"""Time to the first statute search in a fresh process, then per query (a benchmark, not a test).

    JURIS_DATA_DIR=.../kb/consult-new python benchmarks/bench_first_query.py [--queries 5]

Prints the seconds to open the stores, the first search (index loaded or built, jieba started) and the
median of the next searches, as JSON. Run it twice: the first run after an ingestion builds the BM25 cache.
With --after S the services' warm-up starts when they open (as `jurisgraph consult` and `judge` start it)
and the first search comes S seconds later, as a graph's first search comes after its first model call
(a consult's element extraction: about 10 s with the local model); `warm_up_s` is how long the warm-up took.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

QUESTIONS = (
    "醉酒驾驶机动车会受到什么处罚？",
    "公司拖欠工资不发怎么办？",
    "离婚时夫妻共同财产如何分割？",
    "邻居装修把我家墙弄裂了，能要求赔偿吗？",
    "取保候审最长多久？",
    "物业公司中标后要和每位业主签合同吗？",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=5, help="searches timed after the first")
    parser.add_argument("--after", type=float, help="start the warm-up, then search this many seconds later")
    args = parser.parse_args()
    started = time.perf_counter()
    from tools.services import get_services

    services = get_services()
    opened = time.perf_counter()
    warm_up_s = None
    if args.after is not None:
        warming = services.warm_up()
        warming.join(timeout=args.after)
        warm_up_s = round(time.perf_counter() - opened, 3) if not warming.is_alive() else None
        time.sleep(max(0.0, args.after - (time.perf_counter() - opened)))
    searched = time.perf_counter()
    services.retriever.rankings(QUESTIONS[0], 20)
    first = time.perf_counter()
    times = []
    for question in (QUESTIONS[1:] * args.queries)[: args.queries]:
        began = time.perf_counter()
        services.retriever.rankings(question, 20)
        times.append(time.perf_counter() - began)
    result = {
        "open_s": round(opened - started, 3),
        "warm_up_s": warm_up_s,
        "first_search_s": round(first - searched, 3),
        "next_search_median_s": round(statistics.median(times), 3) if times else None,
        "statutes": services.vectors.count("statutes"),
    }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
