"""torch.optim: optimizers over any iterable of Tensors that require grad, and lr schedules."""
from gradjit.optim import lr_scheduler, swa_utils
from gradjit.optim.adafactor import Adafactor
from gradjit.optim.adagrad import Adagrad
from gradjit.optim.adam import Adam, AdamW
from gradjit.optim.adaptive import Adadelta, Adamax, NAdam, RAdam
from gradjit.optim.classic import ASGD, Rprop
from gradjit.optim.lbfgs import LBFGS
from gradjit.optim.muon import Muon
from gradjit.optim.optimizer import Optimizer
from gradjit.optim.rmsprop import RMSprop
from gradjit.optim.sgd import SGD
from gradjit.optim.sparse_adam import SparseAdam

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Muon",
           "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler",
           "swa_utils"]
