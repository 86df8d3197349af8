"""The page a person uses: ask a question or give a fact, watch the work, read the answer and its evidence."""
