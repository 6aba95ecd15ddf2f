"""The Transformer of "Attention Is All You Need" as PyTorch builds it: encoder and decoder
layers (post- or pre-norm), their stacks and the full model, with PyTorch's submodule names,
initialization and checks."""
from __future__ import annotations

import copy
import warnings

import gradjit
from gradjit.nn import functional as F
from gradjit.nn import init
from gradjit.nn.functional.attention import canonical_mask
from gradjit.nn.modules.activation import GELU, Dropout, ReLU
from gradjit.nn.modules.attention import MultiheadAttention
from gradjit.nn.modules.container import ModuleList
from gradjit.nn.modules.linear import Linear
from gradjit.nn.modules.module import Module
from gradjit.nn.modules.normalization import LayerNorm
from gradjit.tracer.leaves import is_traced


def _activation(activation):
    if not isinstance(activation, str):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class _Layer(Module):
    """What encoder and decoder layers share: attention blocks, the feed-forward block, norms
    and dropouts, registered in PyTorch's order."""

    def __init__(self, cross, d_model, nhead, dim_feedforward, dropout, activation,
                 layer_norm_eps, batch_first, norm_first, bias, like):
        super().__init__()
        attention = dict(dropout=dropout, bias=bias, batch_first=batch_first, **like)
        self.self_attn = MultiheadAttention(d_model, nhead, **attention)
        if cross:
            self.multihead_attn = MultiheadAttention(d_model, nhead, **attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **like)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **like)
        self.norm_first = norm_first
        blocks = 3 if cross else 2
        for index in range(1, blocks + 1):
            setattr(self, f"norm{index}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias,
                                                    **like))
        for index in range(1, blocks + 1):
            setattr(self, f"dropout{index}", Dropout(dropout))
        self.activation = _activation(activation)

    def _attention(self, attention, x, memory, mask, padding, is_causal, dropout):
        return dropout(attention(x, memory, memory, attn_mask=mask, key_padding_mask=padding,
                                 need_weights=False, is_causal=bool(is_causal))[0])

    def _feed_forward(self, x, dropout):
        return dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def _residual(self, x, blocks):
        """x through each block with its residual connection and norm, the norm before the
        block (norm_first) or after the sum."""
        for norm, block in blocks:
            x = x + block(norm(x)) if self.norm_first else norm(x + block(x))
        return x


class TransformerEncoderLayer(_Layer):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__(False, d_model, nhead, dim_feedforward, dropout, activation,
                         layer_norm_eps, batch_first, norm_first, bias,
                         dict(device=device, dtype=dtype))
        # PyTorch's record of which fused activation its fast path would take
        act = self.activation
        self.activation_relu_or_gelu = (
            1 if act is F.relu or isinstance(act, ReLU) else
            2 if act is F.gelu or isinstance(act, GELU) else 0)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                              src.dtype, src_mask, "src_mask")
        src_mask = canonical_mask(src_mask, "src_mask", src.dtype)

        def attend(x):
            return self._attention(self.self_attn, x, x, src_mask, src_key_padding_mask,
                                   is_causal, self.dropout1)
        return self._residual(src, [(self.norm1, attend), (self.norm2, lambda x:
                                                           self._feed_forward(x, self.dropout2))])


class TransformerDecoderLayer(_Layer):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__(True, d_model, nhead, dim_feedforward, dropout, activation,
                         layer_norm_eps, batch_first, norm_first, bias,
                         dict(device=device, dtype=dtype))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        def attend(x):
            return self._attention(self.self_attn, x, x, tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal, self.dropout1)

        def cross(x):
            return self._attention(self.multihead_attn, x, memory, memory_mask,
                                   memory_key_padding_mask, memory_is_causal, self.dropout2)
        return self._residual(tgt, [(self.norm1, attend), (self.norm2, cross),
                                    (self.norm3, lambda x: self._feed_forward(x, self.dropout3))])


def _why_not_nested(layer):
    """Why PyTorch's encoder would not take its nested-tensor path with this layer ('' if it
    would), in its words and order of checks."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    reasons = [
        (layer.norm_first, f"{name}.norm_first was True"),
        (not attn.batch_first, f"{name}.self_attn.batch_first was not True(use batch_first for "
                               "better inference performance)"),
        (not attn._qkv_same_embed_dim, f"{name}.self_attn._qkv_same_embed_dim was not True"),
        (attn.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
        (layer.norm1.eps != layer.norm2.eps, f"{name}.norm1.eps was not equal to "
                                             f"{name}.norm2.eps"),
        (attn.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd")]
    return next((reason for failed, reason in reasons if failed), "")


def _clones(layer, num_layers):
    return ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])


class TransformerEncoder(Module):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        # Nested tensors are a speed path in PyTorch; gradjit always runs the padded form, but
        # keeps PyTorch's flag and its warning on why the path is off
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        self.use_nested_tensor = enable_nested_tensor
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why_not}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                              src.dtype, mask, "mask")
        mask = canonical_mask(mask, "mask", src.dtype)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        if self._nested(src, mask, src_key_padding_mask):
            # PyTorch's nested-tensor path drops the padded positions and pads its result
            # back with zeros (before the final norm)
            output = output.masked_fill((src_key_padding_mask != 0).unsqueeze(-1), 0.0)
        return output if self.norm is None else self.norm(output)

    def _nested(self, src, mask, padding):
        """Whether PyTorch's encoder takes its nested-tensor path: evaluating without
        gradients, a left-aligned padding mask and no attention mask."""
        first = self.layers[0]
        if not self.use_nested_tensor or first.training or src.dim() != 3 or padding is None \
                or mask is not None:
            return False
        weights = [src] + [p for p in first.parameters()]
        if gradjit.is_grad_enabled() and any(w.requires_grad for w in weights):
            return False
        if is_traced(padding):  # a traced mask is taken as left-aligned, as masks mostly are
            return True
        valid = (padding == 0).long()
        return not bool((valid[:, 1:] > valid[:, :-1]).any())  # no valid after a padded one


class TransformerDecoder(Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        like = dict(device=device, dtype=dtype)
        layer = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                     layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                     norm_first=norm_first, bias=bias, **like)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, **layer), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **like))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, **layer), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **like))
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The float causal mask: -inf above the diagonal, 0 elsewhere."""
        return gradjit.full((sz, sz), float("-inf"), device=device,
                            dtype=dtype or gradjit.float32).triu(1)
