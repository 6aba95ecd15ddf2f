"""torch.nn.functional: the math of every nn layer and loss, written with Tensor operations so
it runs eagerly, under autograd and inside gradjit.grad/jit alike."""
from gradjit.nn.functional.activation import (batch_norm, bilinear, dropout,  # noqa: F401
                                              embedding, gelu, layer_norm, leaky_relu, linear,
                                              log_softmax, one_hot, relu, sigmoid, softmax,
                                              tanh)
from gradjit.nn.functional.conv import (avg_pool2d, conv1d, conv2d, max_pool2d,  # noqa: F401
                                        pad)
from gradjit.nn.functional.loss import (binary_cross_entropy,  # noqa: F401
                                        binary_cross_entropy_with_logits, cross_entropy,
                                        huber_loss, l1_loss, mse_loss, nll_loss,
                                        smooth_l1_loss)
