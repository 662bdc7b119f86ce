"""vdla.Config and vdla.configs: shipped configs, validation, replace, save/load."""

import json
import re

import pytest

import vdla

SHIPPED = {"pynq", "pynq-classic", "tiny", "ultra96", "zcu104"}


PUBLIC = {"Artifact", "Config", "Error", "Evaluation", "Exploration", "Model", "Profile", "Session", "compile",
          "configs", "devices", "evaluate", "explore", "image_input", "keygen", "load", "load_artifact", "profile",
          "run", "seeded_input", "target_stages", "targets", "trust_keys"}


def test_version_and_exports():
    assert isinstance(vdla.__version__, str) and vdla.__version__.count(".") >= 1
    # The API these tests cover: a new name needs its tests (and a line in docs/python.md).
    assert set(vdla.__all__) == PUBLIC
    for name in vdla.__all__:
        assert hasattr(vdla, name), name
    assert issubclass(vdla.Error, RuntimeError)


def test_configs_lists_the_shipped_ones():
    names = vdla.configs()
    assert isinstance(names, list)
    assert SHIPPED <= set(names)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_config_loads(name):
    cfg = vdla.Config.load(name)
    assert cfg.name == name
    g = cfg.gemm
    assert cfg.macs_per_cycle == g["batch"] * g["block_in"] * g["block_out"]
    assert len(cfg.hash) == 16 and int(cfg.hash, 16) >= 0
    assert cfg.clock_mhz > 0


def test_pynq_fields():
    cfg = vdla.Config.load("pynq")
    assert cfg.part == "xc7z020clg400-1"
    assert cfg.clock_mhz == 150
    assert cfg.gemm == {"batch": 1, "block_in": 16, "block_out": 16}
    assert cfg.macs_per_cycle == 256
    assert cfg["buffers_kib"]["weight"] == 128
    assert cfg["axi"] == {"data_bits": 64}
    derived = cfg.derived
    assert derived["hash"] == cfg.hash
    assert derived["macs_per_cycle"] == 256
    assert set(derived["memories"]) == {"UOP", "INP", "WGT", "ACC", "OUT"}
    for mem, kib in (("UOP", 32), ("INP", 64), ("WGT", 128), ("ACC", 128), ("OUT", 32)):
        m = derived["memories"][mem]
        assert m["depth"] * m["entry_bytes"] == kib * 1024, mem
        assert 2 ** m["index_bits"] >= m["depth"]
    assert derived["memories"]["WGT"]["entry_bytes"] == 16 * 16  # one block_out x block_in int8 tile
    assert derived["peak_gops"] == pytest.approx(2 * 256 * 150e6 / 1e9)
    assert "derived" not in cfg.to_dict()
    r = repr(cfg)
    assert "pynq" in r and "1x16x16" in r and cfg.hash in r


def test_copies_do_not_alias_the_config():
    cfg = vdla.Config.load("pynq")
    d = cfg.to_dict()
    d["gemm"]["block_in"] = 64
    section = cfg["gemm"]
    section["block_out"] = 64
    gemm = cfg.gemm
    gemm["batch"] = 8
    derived = cfg.derived
    derived["hash"] = "0"
    assert cfg.gemm == {"batch": 1, "block_in": 16, "block_out": 16}
    assert cfg.derived["hash"] == cfg.hash != "0"


def test_from_dict_and_json_text_equal_the_shipped_config():
    cfg = vdla.Config.load("zcu104")
    from_dict = vdla.Config(cfg.to_dict())
    from_text = vdla.Config(cfg.to_json())
    assert from_dict == cfg and from_text == cfg
    assert from_dict.hash == cfg.hash and from_text.to_dict() == cfg.to_dict()
    assert json.loads(cfg.to_json(indent=None)) == cfg.to_dict()
    # A document carrying its derived quantities (as configToJson writes it) is accepted too.
    with_derived = dict(cfg.to_dict(), derived=cfg.derived)
    assert vdla.Config(with_derived) == cfg
    assert len({cfg, from_dict, from_text, vdla.Config.load("pynq")}) == 2


def test_config_constructor_rejects_non_documents():
    with pytest.raises(ValueError, match="Config.load"):
        vdla.Config("pynq")
    with pytest.raises(TypeError):
        vdla.Config(42)


def test_unknown_config_name():
    with pytest.raises(vdla.Error) as e:
        vdla.Config.load("no-such-board")
    msg = str(e.value)
    assert "no-such-board" in msg and "pynq" in msg


def test_missing_config_file(tmp_path):
    path = tmp_path / "absent.json"
    with pytest.raises(vdla.Error, match="absent.json"):
        vdla.Config.load(path)


def test_invalid_json_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{ not json")
    with pytest.raises(vdla.Error, match="invalid JSON"):
        vdla.Config.load(path)


@pytest.mark.parametrize(
    "field, value, reason",
    [
        ("gemm.block_in", 3, "power of two"),
        ("gemm.batch", 32, r"\[1, 16\]"),
        ("target.clock_mhz", -5, "clock_mhz"),
        ("axi.data_bits", 48, "one of"),
        ("data_bits.weight", 4, "one of"),
        ("queues.command_depth", 0, r"\[1, 4096\]"),
        ("name", "", "must not be empty"),
        ("target.part", 7, "must be a string"),
    ],
)
def test_invalid_field_value_names_the_field(field, value, reason):
    with pytest.raises(vdla.Error) as e:
        vdla.Config.load("pynq").replace({field: value})
    msg = str(e.value)
    assert f"'{field}'" in msg, msg
    assert re.search(reason, msg), msg


def test_unknown_and_missing_fields_in_a_document():
    doc = vdla.Config.load("pynq").to_dict()
    doc["gemm"]["blockin"] = 16
    with pytest.raises(vdla.Error, match=r"'gemm\.blockin'.*not a known field"):
        vdla.Config(doc)
    doc = vdla.Config.load("pynq").to_dict()
    del doc["axi"]
    with pytest.raises(vdla.Error, match=r"'axi'.*missing"):
        vdla.Config(doc)


def test_output_buffer_must_match_accumulator():
    with pytest.raises(vdla.Error, match=r"buffers_kib\.output"):
        vdla.Config.load("pynq").replace({"buffers_kib.output": 64})


def test_replace_changes_the_field_and_the_hash():
    base = vdla.Config.load("pynq")
    # DWGEMM's lanes need block_in >= block_out, STORE INP block_in == block_out:
    # the wider array goes without both
    wider = base.replace({"gemm.block_out": 32, "extensions.depthwise_taps": 0, "extensions.inp_writeback": False})
    assert wider.gemm["block_out"] == 32 and base.gemm["block_out"] == 16
    assert wider.macs_per_cycle == 512
    assert wider.hash != base.hash
    assert wider != base
    # Keyword form with double underscores, several fields at once.
    both = base.replace(gemm__block_out=32, extensions__depthwise_taps=0, extensions__inp_writeback=False,
                        name="pynq-wide")
    assert both.name == "pynq-wide" and both.gemm["block_out"] == 32
    assert both.hash == wider.hash  # the name is not hardware
    assert both != wider  # but configs of different names are different configs
    slower = base.replace(target__clock_mhz=125)
    assert slower.clock_mhz == 125 and slower.hash != base.hash


def test_replace_unknown_path():
    cfg = vdla.Config.load("pynq")
    with pytest.raises(KeyError, match="block_inn"):
        cfg.replace({"gemm.block_inn": 16})
    with pytest.raises(KeyError, match="'name' is not a section"):
        cfg.replace({"name.first": "x"})


def test_save_and_load_round_trip(tmp_path):
    cfg = vdla.Config.load("ultra96").replace(name="mine", gemm__block_out=32, extensions__fused_requant=False,
                                              extensions__gemm_requant=False)
    path = tmp_path / "mine.json"
    cfg.save(path)
    text = path.read_text()
    assert text.endswith("\n") and json.loads(text) == cfg.to_dict()
    again = vdla.Config.load(path)
    assert again == cfg
    assert again.hash == cfg.hash and again.to_dict() == cfg.to_dict() and again.derived == cfg.derived
    assert vdla.Config.load(str(path)) == cfg


def test_coerce():
    cfg = vdla.Config.load("tiny")
    assert vdla.Config.coerce(cfg) is cfg
    assert vdla.Config.coerce("tiny") == cfg
    assert vdla.Config.coerce(cfg.to_dict()) == cfg
    with pytest.raises(vdla.Error):
        vdla.Config.coerce("not-a-config")


def test_hash_is_stamped_into_artifacts(resnet18_llvm):
    assert resnet18_llvm.config_name == "pynq"
    assert resnet18_llvm.config_hash == vdla.Config.load("pynq").hash
