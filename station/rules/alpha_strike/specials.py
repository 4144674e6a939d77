"""Alpha Strike special abilities as cards and the Master Unit List print them.

The quick-start defines only a few (digest §10); the station carries the others on the card and
shows them, so an imported record keeps them all, but a typo in a hand-written card is still an
error that names it.  The abbreviations are Alpha Strike: Commander's Edition's (its standard,
optional and aerospace lists), checked against real MUL records (tests/data/mul).
"""

from __future__ import annotations

import re

KNOWN_SPECIALS = (
    "ABA",
    "AC",
    "AECM",
    "AFC",
    "AM",
    "AMP",
    "AMS",
    "ARM",
    "ARS",
    "ART",
    "AT",
    "ATAC",
    "ATMO",
    "BAR",
    "BFC",
    "BH",
    "BHJ",
    "BHJ2",
    "BHJ3",
    "BIM",
    "BOMB",
    "BRA",
    "BRID",
    "BT",
    "BTAS",
    "C3BSM",
    "C3BSS",
    "C3EM",
    "C3I",
    "C3M",
    "C3RS",
    "C3S",
    "CAP",
    "CAR",
    "CASE",
    "CASEII",
    "CASEP",
    "CK",
    "CKEM",
    "CNARC",
    "CR",
    "CRW",
    "CT",
    "CTX",
    "D",
    "DCC",
    "DJ",
    "DN",
    "DRO",
    "DT",
    "DUN",
    "ECM",
    "ECS",
    "EE",
    "ENE",
    "ENG",
    "ES",
    "FC",
    "FD",
    "FF",
    "FLK",
    "FR",
    "FUEL",
    "GLD",
    "HELI",
    "HJ",
    "HPG",
    "HT",
    "HTC",
    "I-TSM",
    "IATM",
    "IF",
    "INARC",
    "IND",
    "IRA",
    "IT",
    "JAM",
    "JMPS",
    "JMPW",
    "KF",
    "LAM",
    "LECM",
    "LF",
    "LG",
    "LMAS",
    "LPRB",
    "LRM",
    "LTAG",
    "MAG",
    "MAS",
    "MASH",
    "MCS",
    "MDS",
    "MEC",
    "MEL",
    "MFB",
    "MHQ",
    "MSW",
    "MT",
    "MTAS",
    "MTN",
    "NC3",
    "NOVA",
    "OMNI",
    "ORO",
    "OVL",
    "PAR",
    "PNT",
    "PRB",
    "PT",
    "QV",
    "RAIL",
    "RAMS",
    "RBT",
    "RCA",
    "RCN",
    "REAR",
    "REL",
    "RFA",
    "RHS",
    "RSD",
    "SAW",
    "SBF",
    "SCAP",
    "SCR",
    "SDCS",
    "SDS",
    "SDS-C",
    "SDS-CM",
    "SDS-SC",
    "SEAL",
    "SHLD",
    "SLG",
    "SNARC",
    "SNIPER",
    "SOA",
    "SPC",
    "SRCH",
    "SRM",
    "ST",
    "STL",
    "SUBS",
    "SUBW",
    "TAG",
    "TH",
    "TOR",
    "TRN",
    "TSEMP",
    "TSI",
    "TSM",
    "TSMX",
    "TUR",
    "UCS",
    "UMU",
    "VLG",
    "VR",
    "VRT",
    "VSTOL",
    "VTH",
    "VTM",
    "VTS",
    "WAT",
    "XMEC",
)
# An ability is its abbreviation, then its numbers, brackets or nothing: "CAR4", "CAR 4",
# "IF0*", "REAR1/1/-/-", "TUR(3/3/-,AC3/3/-)", "TUR1 (1/1/1)", "LAM (24\"g/4a)".  Artillery is
# ART plus the piece and a count: "ARTAIS-1", "ARTLT-2".
SPECIAL = re.compile(
    r"^(?:ART[A-Z0-9]+-\d+$|("
    + "|".join(sorted(map(re.escape, KNOWN_SPECIALS), key=len, reverse=True))
    + r")(?=$|[\d\s(/*-]))"
)


def split_abilities(text: str) -> list[str]:
    """The MUL's ``BFAbilities`` as a list: split on commas outside brackets, so a turret's
    ``TUR(3/3/-,AC3/3/-)`` stays one ability."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def is_known(ability: str) -> bool:
    return SPECIAL.match(ability) is not None
