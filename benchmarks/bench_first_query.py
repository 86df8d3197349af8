"""Time to the first statute search in a fresh process, then per query (a benchmark, not a test).

    JURIS_DATA_DIR=.../kb/consult-new python benchmarks/bench_first_query.py [--queries 5]

Prints the seconds to open the stores, the first search (index loaded or built, jieba started) and the
median of the next searches, as JSON. Run it twice: the first run after an ingestion builds the BM25 cache.
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
    args = parser.parse_args()
    started = time.perf_counter()
    from tools.services import get_services

    services = get_services()
    opened = time.perf_counter()
    services.retriever.rankings(QUESTIONS[0], 20)
    first = time.perf_counter()
    times = []
    for question in (QUESTIONS[1:] * args.queries)[: args.queries]:
        began = time.perf_counter()
        services.retriever.rankings(question, 20)
        times.append(time.perf_counter() - began)
    result = {
        "open_s": round(opened - started, 3),
        "first_search_s": round(first - opened, 3),
        "next_search_median_s": round(statistics.median(times), 3) if times else None,
        "statutes": services.vectors.count("statutes"),
    }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
