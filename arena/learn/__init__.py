"""`arena train` and `arena models`: training data from a teacher's play (data), the fit of a model on
it and the model file (fit). The model file's format, its checks and the features live in
agents/learned.py, where the agents that play with a model read them.
"""
