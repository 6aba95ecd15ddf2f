"""torch.distributions.transforms: invertible maps with their log |det J|, for
TransformedDistribution and constraint_registry."""
from gradjit.distributions.transforms.base import (ComposeTransform,  # noqa: F401
                                                   IndependentTransform, ReshapeTransform,
                                                   Transform, _InverseTransform,
                                                   identity_transform)
from gradjit.distributions.transforms.elementwise import (  # noqa: F401
    AbsTransform, AffineTransform, CumulativeDistributionTransform, ExpTransform,
    PowerTransform, SigmoidTransform, SoftplusTransform, TanhTransform)
from gradjit.distributions.transforms.structured import (  # noqa: F401
    CatTransform, CorrCholeskyTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
    SoftmaxTransform, StackTransform, StickBreakingTransform)

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
           "Transform", "identity_transform"]
