"""What config objects make of their construction's arguments (rules/api_table.json config_objects).

Run where easydict, addict, munch, ml_collections, attrs and pydantic are installed:
    python3 tests/probes/config_objects.py
One JSON line per case: the attribute (or item) read back, or the exception raised. Not part of CI.
"""
import argparse
import dataclasses
import importlib.metadata
import json
import sys
import types
import typing

import addict
import attr
import attrs
import easydict
import ml_collections
import munch
import pydantic

from probe_case import case

print(json.dumps({"python": sys.version.split()[0],
                  **{name: importlib.metadata.version(name)
                     for name in ("easydict", "addict", "munch", "ml_collections", "attrs", "pydantic")}}), flush=True)

case("types.SimpleNamespace(bn_eps=0.0).bn_eps", lambda: types.SimpleNamespace(bn_eps=0.0).bn_eps)
case("types.SimpleNamespace({'bn_eps': 0.0}).bn_eps", lambda: types.SimpleNamespace({"bn_eps": 0.0}).bn_eps)
case("argparse.Namespace(bn_eps=0.0).bn_eps", lambda: argparse.Namespace(bn_eps=0.0).bn_eps)
for name, cls in [("easydict.EasyDict", easydict.EasyDict), ("addict.Dict", addict.Dict), ("munch.Munch", munch.Munch),
                  ("ml_collections.ConfigDict", ml_collections.ConfigDict)]:
    case(f"{name}(bn_eps=0.0).bn_eps", lambda: cls(bn_eps=0.0).bn_eps)
    case(f"{name}({{'bn_eps': 0.0}}).bn_eps", lambda: cls({"bn_eps": 0.0}).bn_eps)
    case(f"{name}({{'bn_eps': 0.0}})['bn_eps']", lambda: cls({"bn_eps": 0.0})["bn_eps"])
    case(f"{name}(dict(bn_eps=0.0)).bn_eps", lambda: cls(dict(bn_eps=0.0)).bn_eps)


@dataclasses.dataclass
class D:
    channels: int = 64
    bn_eps: float = 1e-5
    scale: typing.ClassVar[float] = 2.0
    tag: dataclasses.InitVar[int] = 0


@dataclasses.dataclass
class KwOnly:
    channels: int = 64
    _: dataclasses.KW_ONLY
    bn_eps: float = 1e-5


@dataclasses.dataclass
class FieldDefault:
    bn_eps: float = dataclasses.field(default=0.0)


class Tuple(typing.NamedTuple):
    channels: int = 64
    bn_eps: float = 1e-5


@attr.s(auto_attribs=True)
class AttrS:
    channels: int = 64
    bn_eps: float = 1e-5


@attrs.define
class AttrsDefine:
    channels: int = 64
    bn_eps: float = 1e-5


@attrs.define
class AttrsPrivate:
    _bn_eps: float = 1e-5


class Model(pydantic.BaseModel):
    channels: int = 64
    bn_eps: float = 1e-5


@dataclasses.dataclass
class Base:
    channels: int = 64


@dataclasses.dataclass
class Sub(Base):
    bn_eps: float = 1e-5


case("dataclass D(8, 0.0).bn_eps", lambda: D(8, 0.0).bn_eps)
case("dataclass D(bn_eps=0.0).bn_eps", lambda: D(bn_eps=0.0).bn_eps)
case("dataclass D(8, 0.0, 3).tag (InitVar)", lambda: D(8, 0.0, 3).tag)
case("dataclass KwOnly(8, 0.0) (a field after KW_ONLY)", lambda: KwOnly(8, 0.0).bn_eps)
case("dataclass FieldDefault().bn_eps (field(default=0.0))", lambda: FieldDefault().bn_eps)
case("NamedTuple Tuple(8, 0.0).bn_eps", lambda: Tuple(8, 0.0).bn_eps)
case("attr.s(auto_attribs=True) AttrS(8, 0.0).bn_eps", lambda: AttrS(8, 0.0).bn_eps)
case("attrs.define AttrsDefine(8, 0.0).bn_eps", lambda: AttrsDefine(8, 0.0).bn_eps)
case("attrs.define AttrsPrivate(bn_eps=0.0)._bn_eps (a private field's keyword)", lambda: AttrsPrivate(bn_eps=0.0)._bn_eps)
case("pydantic Model(bn_eps=0).bn_eps", lambda: Model(bn_eps=0).bn_eps)
case("pydantic Model(8, 0.0)", lambda: repr(Model(8, 0.0)))
case("dataclass Sub(8, 0.0).bn_eps (a base's fields first)", lambda: Sub(8, 0.0).bn_eps)
