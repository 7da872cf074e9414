"""Bad input: every invalid config gives one clear error naming the field, through
the API and through the CLI, and no panic or traceback reaches the user."""

import subprocess
import sys

import pytest
import ssdlab

# (device overrides, workload, text the message must contain)
BAD = [
    ([], {"bs": 1000}, "bs"),
    ([], {"bs": "0"}, "bs"),
    ([], {"iodepth": 0}, "iodepth"),
    ([], {"iodepth": -3}, "iodepth"),
    ([], {"numjobs": 0}, "numjobs"),
    ([], {"rw": "sideways"}, "rw"),
    ([], {"size": "1TiB"}, "size"),
    ([], {"offset": "30MiB"}, "offset"),
    ([], {"rwmixread": 150}, "rwmixread"),
    ([], {"queue_policy": "random"}, "queue_policy"),
    ([], {"bogus_option": 1}, "bogus_option"),
    (["nand.channels=0"], {}, "channels"),
    (["nand.page_size=3000"], {}, "page_size"),
    (["nand.t_read=-5us"], {}, "t_read"),
    (["nand.cell=PLC"], {}, "cell"),
    (["nand.nonsense=1"], {}, "nonsense"),
    (["ftl.over_provisioning=1.5"], {}, "over_provisioning"),
    (["ftl.mapping_unit=3KiB"], {}, "mapping_unit"),
    (["host.pcie_gen=9"], {}, "pcie_gen"),
    (["controller.cores=0"], {}, "cores"),
    (["nand.t_read"], {}, "key=value"),
    (["map.tier=sram", "map.cache=2KiB", "map.segment=4KiB"], {}, "map.cache"),
    (["hmb.hmpre=16MiB", "hmb.hmmin=32MiB"], {}, "hmb.hmmin"),
    (["map.tier=sram", "map.cache=64MiB"], {}, "larger than its tier"),
    (["map.tier=hmb"], {}, "hmb.hmpre"),
]


@pytest.mark.parametrize("overrides,workload,field", BAD)
def test_api_rejects_with_field_name(overrides, workload, field):
    wl = {"number_ios": 10, **workload}
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run("tiny-test", wl, set=overrides)
    assert field in str(e.value)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "ssdlab", *args], capture_output=True, text=True)


def test_cli_rejects_a_batch_of_invalid_configs():
    for overrides, workload, field in BAD:
        args = ["run", "--device", "tiny-test", "--number_ios", "10", "-q"]
        for o in overrides:
            args += ["--set", o]
        for k, v in workload.items():
            if k == "bogus_option":
                args += ["--set", "workload_bogus=1"]
                field = "workload_bogus"
                continue
            args.append(f"--{k}={v}")
        out = _cli(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert out.stderr.startswith("ssdlab: error:"), out.stderr
        assert field in out.stderr, (field, out.stderr)
        assert "Traceback" not in out.stderr and "panicked" not in out.stderr


def test_unknown_device_lists_presets():
    with pytest.raises(ssdlab.ConfigError, match="tiny-test"):
        ssdlab.run("no-such-device")


def test_bad_toml_file_names_file_and_line(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text('name = "x"\n[nand]\nchannels = = 2\n')
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.validate(str(p))
    assert "broken.toml" in str(e.value)
    assert "line 3" in str(e.value) or ":3" in str(e.value)


def test_bad_json_output_leaves_nothing(tmp_path):
    target = tmp_path / "out.json"
    out = _cli("run", "--device", "tiny-test", "--bs", "1000", "--json", str(target))
    assert out.returncode == 2
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_bad_state_and_seed():
    with pytest.raises(ssdlab.ConfigError, match="state"):
        ssdlab.run("tiny-test", {"number_ios": 10}, state="aged")
    with pytest.raises(ssdlab.ConfigError, match="seed"):
        ssdlab.run("tiny-test", {"number_ios": 10}, seed=-1)
