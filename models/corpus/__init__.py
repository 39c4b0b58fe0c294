"""The parallel corpus, built from human translations that Debian ships (build_corpus, one
module per source in sources/)."""
