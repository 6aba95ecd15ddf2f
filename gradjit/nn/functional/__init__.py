"""torch.nn.functional: the math of every nn layer and loss, written with Tensor operations so
it runs eagerly, under autograd and inside gradjit.grad/jit alike."""
from gradjit.nn.functional.activation import (  # noqa: F401
    batch_norm, bilinear, celu, dropout, elu, embedding, gelu, glu, hardshrink, hardsigmoid,
    hardswish, hardtanh, layer_norm, leaky_relu, linear, log_softmax, logsigmoid, mish,
    one_hot, prelu, relu, relu6, rrelu, selu, sigmoid, silu, softmax, softmin, softplus,
    softshrink, softsign, tanh, tanhshrink, threshold, relu_, elu_, leaky_relu_, hardtanh_,
    threshold_, selu_, celu_, rrelu_)
from gradjit.nn.functional.attention import (multi_head_attention_forward,  # noqa: F401
                                             scaled_dot_product_attention)
from gradjit.nn.functional.conv import conv1d, conv2d, conv3d, conv_tbc, pad  # noqa: F401
from gradjit.nn.functional.pooling import (avg_pool1d, avg_pool2d, avg_pool3d,  # noqa: F401
                                           fractional_max_pool2d,
                                           fractional_max_pool2d_with_indices,
                                           fractional_max_pool3d,
                                           fractional_max_pool3d_with_indices,
                                           lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d,
                                           max_pool1d_with_indices, max_pool2d,
                                           max_pool2d_with_indices, max_pool3d,
                                           max_pool3d_with_indices, max_unpool1d, max_unpool2d,
                                           max_unpool3d)
from gradjit.nn.functional.loss import (binary_cross_entropy,  # noqa: F401
                                        binary_cross_entropy_with_logits, cross_entropy,
                                        gaussian_nll_loss, huber_loss, kl_div, l1_loss,
                                        mse_loss, nll_loss, poisson_nll_loss, smooth_l1_loss)
from gradjit.nn.functional.linear_cross_entropy import linear_cross_entropy  # noqa: F401
from gradjit.nn.functional.margin import (cosine_embedding_loss,  # noqa: F401
                                          hinge_embedding_loss, margin_ranking_loss,
                                          multi_margin_loss, multilabel_margin_loss,
                                          multilabel_soft_margin_loss, soft_margin_loss,
                                          triplet_margin_loss,
                                          triplet_margin_with_distance_loss)
from gradjit.nn.functional.noise import (alpha_dropout, feature_alpha_dropout,  # noqa: F401
                                         gumbel_softmax)
from gradjit.nn.functional.normalization import (group_norm, instance_norm,  # noqa: F401
                                                 local_response_norm, rms_norm)
from gradjit.nn.functional.ctc import ctc_loss  # noqa: F401
from gradjit.nn.functional.embedding_bag import embedding_bag  # noqa: F401
from gradjit.nn.functional.grid import affine_grid, grid_sample  # noqa: F401
from gradjit.nn.functional.shuffle import (channel_shuffle, pixel_shuffle,  # noqa: F401
                                           native_channel_shuffle, pixel_unshuffle)
from gradjit.nn.functional.spatial import *  # noqa: F401,F403
from gradjit.nn.functional.transposed import (conv_transpose1d,  # noqa: F401
                                              conv_transpose2d, conv_transpose3d)
from gradjit.nn.functional.interpolate import (interpolate, upsample,  # noqa: F401
                                               upsample_bilinear, upsample_nearest)
from gradjit.nn.functional.fold import fold, unfold  # noqa: F401
