"""From corpus to shipped model: the PyTorch twin of the engine's model (heed_torch), training,
export, evaluation against the C++ engine, the output shortlist and the model cards."""
