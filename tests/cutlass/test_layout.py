from cutlint.cutlass.layout import array, empty, round_up, struct, union


def test_round_up() -> None:
    assert round_up(0, 16) == 0
    assert round_up(1, 16) == 16
    assert round_up(99840, 1024) == 100352


def test_struct_pads_members_and_tail() -> None:
    s = struct("s", [array("a", 1, 1, "x"), array("b", 8, 8, "y")], "t")
    assert (s.size, s.align) == (16, 8)
    names = [p.name for p in s.pieces]
    assert names == ["a", "(padding)", "b"]


def test_empty_member_takes_one_byte_and_forces_round_up() -> None:
    s = struct("s", [array("c", 12288, 512, "x"), empty("thread", "y")], "t")
    assert s.size == 12800


def test_empty_base_adds_only_alignment() -> None:
    s = struct("s", [array("a", 4, 4, "x")], "t", base_align=128)
    assert (s.size, s.align) == (128, 128)


def test_union_is_largest_member() -> None:
    u = union("u", [array("c", 100, 16, "x"), array("d", 300, 16, "y")], "t")
    assert (u.size, u.align) == (304, 16)
