"""BTF member offsets (emusim.linux.btf) on a BTF blob built here, type by type, and on the
running kernel's own BTF where it has one."""

import os
import struct

import pytest

from emusim.linux import btf


class Builder:
    """A BTF blob, one type at a time (include/uapi/linux/btf.h)."""

    def __init__(self):
        self.strings = b"\0"
        self.types = b""
        self.next_id = 1

    def s(self, name: str) -> int:
        if not name:
            return 0
        off = len(self.strings)
        self.strings += name.encode() + b"\0"
        return off

    def add(self, kind: int, name: str, vlen: int, size: int, extra: bytes, kflag=0) -> int:
        info = (kflag << 31) | (kind << 24) | vlen
        self.types += struct.pack("<III", self.s(name), info, size) + extra
        self.next_id += 1
        return self.next_id - 1

    def int(self, name: str, size: int) -> int:
        return self.add(btf.INT, name, 0, size, struct.pack("<I", size * 8))

    def struct(self, name, size, members, kind=btf.STRUCT, kflag=0) -> int:
        extra = b"".join(struct.pack("<III", self.s(n), t, off) for n, t, off in members)
        return self.add(kind, name, len(members), size, extra, kflag)

    def blob(self) -> bytes:
        header = struct.pack(
            "<HBBIIIII", btf.MAGIC, 1, 0, 24, 0, len(self.types), len(self.types),
            len(self.strings),
        )  # fmt: skip
        return header + self.types + self.strings


@pytest.fixture
def sample() -> btf.BTF:
    b = Builder()
    u8, u16, u32 = b.int("u8", 1), b.int("u16", 2), b.int("u32", 4)
    typedef = b.add(btf.TYPEDEF, "__u32", 0, u32, b"")
    const = b.add(btf.CONST, "", 0, typedef, b"")
    # struct inner { u32 a; u8 state:5, flag:1; u8 after; }  (bitfields: kind_flag set)
    inner = b.struct(
        "inner", 8, [("a", u32, 0), ("state", u8, (5 << 24) | 32), ("flag", u8, (1 << 24) | 37),
                     ("after", u8, 40)], kflag=1,
    )  # fmt: skip
    anon_struct = b.struct("", 4, [("port", u16, 0), ("num", u16, 16)])
    anon_union = b.struct("", 4, [("pair", u32, 0), ("", anon_struct, 0)], kind=btf.UNION)
    arr = b.add(btf.ARRAY, "", 0, 0, struct.pack("<III", u32, u32, 8))
    b.struct(
        "outer", 48, [("head", inner, 0), ("", anon_union, 64), ("seq", const, 96),
                      ("cache", arr, 128)],
    )  # fmt: skip
    enum = struct.pack("<Ii", b.s("R_NONE"), 0) + struct.pack("<Ii", b.s("R_QDISC"), 45)
    b.add(btf.ENUM, "reason", 2, 4, enum)
    return btf.BTF(b.blob())


def test_members_nested_anonymous_and_bitfields(sample):
    assert sample.field("outer.seq").offset == 12 and sample.field("outer.seq").byte_size == 4
    head_state = sample.field("outer.head.state")
    assert (head_state.bit_offset, head_state.bit_size, head_state.offset) == (32, 5, 4)
    assert sample.field("outer.head.flag").bit_offset == 37
    assert sample.field("outer.head.after").offset == 5
    # through an anonymous union and the anonymous struct inside it
    assert sample.field("outer.port").offset == 8
    assert sample.field("outer.num").offset == 10
    assert sample.field("outer.pair").byte_size == 4
    assert sample.field("outer.cache").byte_size == 32
    assert sample.enum_value("reason", "R_QDISC") == 45


def test_unknown_names_say_what_is_missing(sample):
    with pytest.raises(btf.BTFError, match="no member 'nope'"):
        sample.field("outer.head.nope")
    with pytest.raises(btf.BTFError, match="no struct or union 'absent'"):
        sample.field("absent.x")
    with pytest.raises(btf.BTFError, match="not BTF"):
        btf.BTF(b"\0" * 32)


@pytest.mark.skipif(
    not os.access(btf.VMLINUX, os.R_OK), reason="this kernel exports no BTF we can read"
)
def test_the_running_kernels_tcp_members():
    """Layouts that have held since 4.x: sock_common's ports, and the control block's
    sequence numbers first in sk_buff.cb."""
    types = btf.BTF.load()
    assert types.field("sock_common.skc_dport").offset == 12
    assert types.field("sock_common.skc_num").offset == 14
    assert types.field("tcp_skb_cb.seq").offset == 0
    assert types.field("tcp_skb_cb.end_seq").offset == 4
    state = types.field("tcp_sock.inet_conn.icsk_ca_state")
    assert state.bit_size == 5
    assert types.field("tcp_sock.snd_cwnd").byte_size == 4
