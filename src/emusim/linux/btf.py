"""Offsets of kernel struct members, read from the running kernel's BTF.

A kprobe event (``kprobe_events``) fetches a field of a kernel structure by its byte offset
from a pointer argument (``+OFFS($arg1):u32``). Offsets are not an ABI: they differ between
kernel builds. Every Debian kernel with ``CONFIG_DEBUG_INFO_BTF=y`` (6.1's does) describes its
own types in ``/sys/kernel/btf/vmlinux``, the BPF Type Format (Documentation/bpf/btf.rst of the
kernel source: a header, the type section, the string section). This module reads the struct
and union types of that file and resolves a member path such as
``tcp_sock.inet_conn.icsk_ca_state`` to its offset in bits (a bitfield keeps its bit offset
and width), descending through the anonymous structs and unions a member may sit in.

Only what a kprobe needs is decoded: struct, union, typedef and qualifier chains, arrays and
integers; other kinds are skipped by their size.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

VMLINUX = Path("/sys/kernel/btf/vmlinux")
MAGIC = 0xEB9F

# BTF kinds (include/uapi/linux/btf.h)
INT, PTR, ARRAY, STRUCT, UNION, ENUM, FWD, TYPEDEF = 1, 2, 3, 4, 5, 6, 7, 8
VOLATILE, CONST, RESTRICT, FUNC, FUNC_PROTO, VAR, DATASEC = 9, 10, 11, 12, 13, 14, 15
FLOAT, DECL_TAG, TYPE_TAG, ENUM64 = 16, 17, 18, 19
_ALIASES = (TYPEDEF, VOLATILE, CONST, RESTRICT, TYPE_TAG)
# bytes that follow a type's 12-byte record: per type, or per member (vlen of them)
_EXTRA_FIXED = {INT: 4, ARRAY: 12, VAR: 4, DECL_TAG: 4}
_EXTRA_PER_MEMBER = {STRUCT: 12, UNION: 12, ENUM: 8, FUNC_PROTO: 8, DATASEC: 12, ENUM64: 12}


class BTFError(ValueError):
    """The BTF data is malformed, or a type or member is not in it."""


@dataclass(frozen=True)
class Member:
    name: str
    type_id: int
    bit_offset: int
    bit_size: int  # 0: not a bitfield


@dataclass(frozen=True)
class Type:
    kind: int
    name: str
    size: int  # bytes (struct, union, int, enum); the referenced type's id for aliases and PTR
    members: tuple[Member, ...] = ()
    array: tuple[int, int] | None = None  # (element type id, number of elements)
    values: tuple[tuple[str, int], ...] = ()  # an enum's enumerators


@dataclass(frozen=True)
class Field:
    """Where a member is: byte offset of its container, and for a bitfield its bits."""

    path: str
    bit_offset: int
    bit_size: int
    byte_size: int  # of the member's type (0 when it has none, e.g. a bitfield's int)

    @property
    def offset(self) -> int:
        return self.bit_offset // 8


class BTF:
    """The types of one BTF blob (ids from 1; id 0 is void)."""

    def __init__(self, data: bytes):
        if len(data) < 24:
            raise BTFError("BTF data shorter than its header")
        magic, _version, _flags, hdr_len = struct.unpack_from("<HBBI", data, 0)
        if magic != MAGIC:
            raise BTFError(f"not BTF (magic {magic:#x}, expected {MAGIC:#x})")
        type_off, type_len, str_off, str_len = struct.unpack_from("<IIII", data, 8)
        self._data = data
        self._strings = data[hdr_len + str_off : hdr_len + str_off + str_len]
        # One pass over the records: where each type is; a type is decoded when asked for
        # (`type`), so that a kernel's 100 000 types cost one scan, not 100 000 objects.
        self._records: list[tuple[int, int, int, int, int, int]] = [(0, 0, 0, 0, 0, 0)]
        self._decoded: dict[int, Type] = {}
        self.by_name: dict[tuple[int, str], int] = {}
        named = (STRUCT, UNION, ENUM, ENUM64)
        unpack = struct.Struct("<III").unpack_from
        pos, end = hdr_len + type_off, hdr_len + type_off + type_len
        while pos < end:
            name_off, info, size = unpack(data, pos)
            kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
            self._records.append((pos + 12, kind, vlen, info >> 31, size, name_off))
            if name_off and kind in named:
                self.by_name.setdefault((kind, self._str(name_off)), len(self._records) - 1)
            pos += 12 + _EXTRA_FIXED.get(kind, 0) + _EXTRA_PER_MEMBER.get(kind, 0) * vlen

    def __len__(self) -> int:
        return len(self._records) - 1

    def type(self, type_id: int) -> Type | None:
        """Type ``type_id`` (None for void or an id out of range)."""
        if type_id in self._decoded:
            return self._decoded[type_id]
        if not 0 < type_id < len(self._records):
            return None
        pos, kind, vlen, kflag, size, name_off = self._records[type_id]
        data = self._data
        members: tuple[Member, ...] = ()
        array = None
        values: tuple[tuple[str, int], ...] = ()
        if kind in (STRUCT, UNION):
            out = []
            for i in range(vlen):
                m_name, m_type, m_off = struct.unpack_from("<III", data, pos + 12 * i)
                bits = (m_off >> 24) if kflag else 0
                off = (m_off & 0xFFFFFF) if kflag else m_off
                out.append(Member(self._str(m_name), m_type, off, bits))
            members = tuple(out)
        elif kind == ARRAY:
            elem, _index, nelems = struct.unpack_from("<III", data, pos)
            array = (elem, nelems)
        elif kind == ENUM:
            values = tuple(
                (self._str(n), v)
                for n, v in (struct.unpack_from("<Ii", data, pos + 8 * i) for i in range(vlen))
            )
        elif kind == ENUM64:
            triples = (struct.unpack_from("<III", data, pos + 12 * i) for i in range(vlen))
            values = tuple((self._str(n), lo | hi << 32) for n, lo, hi in triples)
        t = Type(kind, self._str(name_off), size, members, array, values)
        self._decoded[type_id] = t
        return t

    @classmethod
    def load(cls, path: Path = VMLINUX) -> BTF:
        return cls(Path(path).read_bytes())

    def _str(self, off: int) -> str:
        stop = self._strings.find(b"\0", off)
        return self._strings[off : stop if stop >= 0 else None].decode()

    def resolve(self, type_id: int) -> tuple[int, Type | None]:
        """Follow typedefs and qualifiers to the type they name."""
        seen = 0
        while type_id and seen < 64:
            t = self.type(type_id)
            if t is None or t.kind not in _ALIASES:
                return type_id, t
            type_id = t.size
            seen += 1
        return type_id, None

    def byte_size(self, type_id: int) -> int:
        _, t = self.resolve(type_id)
        if t is None:
            return 0
        if t.kind == ARRAY and t.array:
            return self.byte_size(t.array[0]) * t.array[1]
        if t.kind == PTR:
            return 8
        return t.size if t.kind in (INT, STRUCT, UNION, ENUM, ENUM64, FLOAT) else 0

    def enum_value(self, enum: str, name: str) -> int:
        """The value of enumerator ``name`` of ``enum skb_drop_reason``-like ``enum``."""
        for kind in (ENUM, ENUM64):
            type_id = self.by_name.get((kind, enum))
            if type_id is not None:
                t = self.type(type_id)
                assert t is not None
                for key, value in t.values:
                    if key == name:
                        return value
                raise BTFError(f"enum {enum} has no {name!r}")
        raise BTFError(f"no enum {enum!r} in this BTF")

    def struct(self, name: str) -> int:
        """The id of the struct (or else union) called ``name``."""
        for kind in (STRUCT, UNION):
            if (kind, name) in self.by_name:
                return self.by_name[(kind, name)]
        raise BTFError(f"no struct or union {name!r} in this BTF")

    def _find(self, type_id: int, name: str) -> tuple[Member, int] | None:
        """Member ``name`` of a struct or union, looked for in its anonymous members too;
        returns it with the bit offset of the anonymous member that holds it."""
        _, t = self.resolve(type_id)
        if t is None or t.kind not in (STRUCT, UNION):
            return None
        for m in t.members:
            if m.name == name:
                return m, 0
        for m in t.members:
            if not m.name:
                found = self._find(m.type_id, name)
                if found is not None:
                    inner, base = found
                    return inner, m.bit_offset + base
        return None

    def field(self, path: str) -> Field:
        """``STRUCT.member[.member...]``: where that member is in STRUCT."""
        head, *names = path.split(".")
        if not names:
            raise BTFError(f"{path!r}: give STRUCT.member")
        type_id, bits, member = self.struct(head), 0, None
        for name in names:
            found = self._find(type_id, name)
            if found is None:
                raise BTFError(f"{path!r}: no member {name!r}")
            member, base = found
            bits += base + member.bit_offset
            type_id = member.type_id
        assert member is not None
        return Field(path, bits, member.bit_size, self.byte_size(member.type_id))


def offsets(paths: dict[str, str], btf: BTF | None = None) -> dict[str, Field]:
    """Name → Field of each member path (e.g. ``{"cwnd": "tcp_sock.snd_cwnd"}``)."""
    btf = btf or BTF.load()
    return {name: btf.field(path) for name, path in paths.items()}
