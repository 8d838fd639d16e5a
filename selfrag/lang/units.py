"""Units people write after numbers ("two hours", "500 m", "3 stars", "$"), by their folded singular.

Each unit belongs to a dimension and converts to that dimension's base unit, so "2 hours" can be
compared with an attribute stored in minutes. Currencies are not converted (no rates offline): a
currency only says "this is money".
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["UNITS", "Unit"]


class Unit(NamedTuple):
    """A unit written after a number, in terms of its dimension's base unit."""

    dimension: str
    factor: float
    """Multiply by this to get the dimension's base unit (minutes, metres, square metres, dollars...)."""


_SQ_FT = 0.09290304
UNITS: dict[str, Unit] = {
    # time, base minutes
    "second": Unit("time", 1 / 60), "sec": Unit("time", 1 / 60), "secs": Unit("time", 1 / 60), "s": Unit("time", 1 / 60),
    "minute": Unit("time", 1), "min": Unit("time", 1), "mins": Unit("time", 1), "hour": Unit("time", 60),
    "hr": Unit("time", 60), "hrs": Unit("time", 60), "h": Unit("time", 60), "day": Unit("time", 1440),
    "week": Unit("time", 10080), "month": Unit("time", 43800), "year": Unit("time", 525600), "yr": Unit("time", 525600),
    "yrs": Unit("time", 525600),
    # length, base metres
    "m": Unit("length", 1), "meter": Unit("length", 1), "metre": Unit("length", 1), "km": Unit("length", 1000),
    "kilometer": Unit("length", 1000), "kilometre": Unit("length", 1000), "mile": Unit("length", 1609.344),
    "mi": Unit("length", 1609.344), "ft": Unit("length", 0.3048), "foot": Unit("length", 0.3048),
    "feet": Unit("length", 0.3048), "yard": Unit("length", 0.9144), "block": Unit("length", 100),
    "cm": Unit("length", 0.01), "mm": Unit("length", 0.001), "millimeter": Unit("length", 0.001),
    "millimetre": Unit("length", 0.001), "inch": Unit("length", 0.0254),
    # area, base square metres
    "sqft": Unit("area", _SQ_FT), "sq ft": Unit("area", _SQ_FT), "square foot": Unit("area", _SQ_FT),
    "square feet": Unit("area", _SQ_FT), "ft2": Unit("area", _SQ_FT), "sq m": Unit("area", 1), "sqm": Unit("area", 1),
    "m2": Unit("area", 1), "square meter": Unit("area", 1), "square metre": Unit("area", 1),
    "acre": Unit("area", 4046.86), "hectare": Unit("area", 10000),
    # weight, base grams
    "g": Unit("weight", 1), "gram": Unit("weight", 1), "kg": Unit("weight", 1000), "kilo": Unit("weight", 1000),
    "kilogram": Unit("weight", 1000), "lb": Unit("weight", 453.592), "lbs": Unit("weight", 453.592),
    "pound weight": Unit("weight", 453.592), "ounce": Unit("weight", 28.35), "oz": Unit("weight", 28.35),
    "mg": Unit("weight", 0.001), "milligram": Unit("weight", 0.001), "mcg": Unit("weight", 1e-6),
    "microgram": Unit("weight", 1e-6), "tonne": Unit("weight", 1e6),
    # energy, base kilocalories (food's calories; a kilowatt hour is 860.42 of them)
    "kcal": Unit("energy", 1), "calorie": Unit("energy", 1), "cal": Unit("energy", 1), "cals": Unit("energy", 1),
    "kj": Unit("energy", 0.239006), "kilojoule": Unit("energy", 0.239006), "wh": Unit("energy", 0.860421),
    "kwh": Unit("energy", 860.421), "kilowatt hour": Unit("energy", 860.421), "mwh": Unit("energy", 860421.0),
    "megawatt hour": Unit("energy", 860421.0),
    # money: currencies are not converted (no rates offline); a currency only says "this is money"
    "$": Unit("money", 1), "usd": Unit("money", 1), "dollar": Unit("money", 1), "buck": Unit("money", 1),
    "€": Unit("money", 1), "eur": Unit("money", 1), "euro": Unit("money", 1), "£": Unit("money", 1),
    "gbp": Unit("money", 1), "pound": Unit("money", 1), "quid": Unit("money", 1), "¥": Unit("money", 1),
    "yen": Unit("money", 1), "chf": Unit("money", 1), "franc": Unit("money", 1), "cad": Unit("money", 1),
    "aud": Unit("money", 1), "grand": Unit("money", 1000),
    # temperature: not converted, the scales are affine (°F = 1.8 °C + 32); "degree" is either, so
    # a Fahrenheit attribute reads only what names its own scale
    "celsius": Unit("temperature", 1), "centigrade": Unit("temperature", 1), "degree": Unit("temperature", 1),
    "degree celsius": Unit("temperature", 1), "fahrenheit": Unit("fahrenheit", 1),
    "degree fahrenheit": Unit("fahrenheit", 1),
    # ratings
    "star": Unit("stars", 1), "%": Unit("percent", 1), "percent": Unit("percent", 1), "per cent": Unit("percent", 1),
}  # fmt: skip
"""Units by their folded singular form (the tokenizer's lemma), multi-word ones with a space."""

