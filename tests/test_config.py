"""Settings precedence (flags > env > file > defaults) and clear errors for a bad config file."""

from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_USAGE, main
from hippo_tui.config import ConfigError, SettingError, Settings, default_config_path, load_settings

EXAMPLE = Path(__file__).resolve().parents[1] / "hippo_tui" / "data" / "config.example.toml"


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults_are_the_offline_demo(tmp_path):
    s = load_settings({}, env={"HIPPO_HOME": str(tmp_path)})
    assert s.resolved_backend() == "offline"
    assert s.grounding_timeout == 12.0 and s.max_tokens == 1024
    assert s.db_path() == tmp_path / "hippo.db"


def test_precedence_flags_over_env_over_file(tmp_path):
    cfg = _write(tmp_path, 'model = "from-file"\nbase_url = "http://file:1/v1"\ngrounding_timeout = 5\n')
    env = {"HIPPO_MODEL": "from-env"}
    s = load_settings({}, config_path=cfg, env=env)
    assert (s.model, s.base_url, s.grounding_timeout) == ("from-env", "http://file:1/v1", 5.0)
    s = load_settings({"model": "from-flag", "base_url": None}, config_path=cfg, env=env)
    assert s.model == "from-flag"
    assert s.base_url == "http://file:1/v1"  # a flag left unset does not erase the file's value
    assert s.resolved_backend() == "openai"


def test_openai_env_names_are_the_fallback(tmp_path):
    env = {"OPENAI_BASE_URL": "http://o:1/v1", "OPENAI_API_KEY": "k1", "HIPPO_API_KEY": ""}
    s = load_settings({}, env=env)
    assert (s.base_url, s.api_key) == ("http://o:1/v1", "k1")
    s = load_settings({}, env={**env, "HIPPO_BASE_URL": "http://h:2/v1", "HIPPO_API_KEY": "k2"})
    assert (s.base_url, s.api_key) == ("http://h:2/v1", "k2")


def test_config_file_from_env_and_relative_paths(tmp_path):
    cfg = _write(tmp_path, 'home = "data"\n')
    s = load_settings({}, env={"HIPPO_CONFIG": str(cfg)})
    assert s.home == tmp_path / "data"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('model = "m"\nmodle = "typo"\n', "line 2, key 'modle': unknown key"),
        ('model = "m"\n\ngrounding_timeout = "soon"\n', "line 3, key 'grounding_timeout'"),
        ("grounding_timeout = -1\n", "line 1, key 'grounding_timeout'"),
        ('model = "m\n', "not valid TOML"),
        ('model = "m"\n[keys]\nhelp = 3\n', "line 3, key 'keys.help'"),
        ("keys = { help = 3 }\n", "line 1, key 'keys.help'"),
        ('model = "m"\n\n[modle]\nname = "x"\n', "line 3, key 'modle': unknown key"),
    ],
)
def test_bad_file_names_file_line_and_key(tmp_path, text, expected):
    cfg = _write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        load_settings({}, config_path=cfg, env={})
    assert str(cfg) in str(e.value)
    assert expected in str(e.value)


def test_missing_explicit_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_settings({}, config_path=tmp_path / "nope.toml", env={})


def test_cli_reports_bad_config_and_exits_2(tmp_path, capsys):
    cfg = _write(tmp_path, "colour = 'blue'\n")
    assert main(["--config", str(cfg)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "line 1, key 'colour': unknown key" in err and str(cfg) in err


def test_example_config_file_is_valid(tmp_path):
    s = load_settings({}, config_path=EXAMPLE, env={})
    assert s.resolved_backend() in {"offline", "openai"}


def test_the_platform_config_folder_is_read_and_an_explicit_file_replaces_it(tmp_path, no_user_folders):
    default = default_config_path()
    assert default.is_relative_to(no_user_folders)  # never the developer's own file
    assert default.parts[-2:] == ("hippo-tui", "config.toml")
    default.parent.mkdir(parents=True)
    default.write_text('model = "from-platform-folder"\nretrieval_k = 7\n')
    s = load_settings({}, env={})
    assert (s.model, s.retrieval_k) == ("from-platform-folder", 7)
    explicit = _write(tmp_path, 'model = "explicit"\n')
    s = load_settings({}, config_path=explicit, env={})
    assert (s.model, s.retrieval_k) == ("explicit", 5)  # one file: the explicit one, not a merge of both
    default.write_text("modle = 1\n")
    with pytest.raises(ConfigError, match=r"hippo-tui/config.toml: line 1, key 'modle'"):
        load_settings({}, env={})


def test_a_bad_value_from_a_flag_or_the_environment_names_where_it_came_from(tmp_path):
    with pytest.raises(ConfigError, match=r"^HIPPO_BACKEND \(environment\): .*'offline'"):
        load_settings({}, env={"HIPPO_BACKEND": "bogus"})
    with pytest.raises(ConfigError, match=r"^--grounding-timeout: .*greater than 0"):
        load_settings({"grounding_timeout": -1}, env={})
    with pytest.raises(ConfigError, match=r"^--speed: "):
        load_settings({"replay_speed": -2}, env={})


def test_max_tokens_from_file_env_and_flag(tmp_path):
    cfg = _write(tmp_path, "max_tokens = 300\n")
    assert load_settings({}, config_path=cfg, env={}).max_tokens == 300
    assert load_settings({}, config_path=cfg, env={"HIPPO_MAX_TOKENS": "400"}).max_tokens == 400
    assert (
        load_settings({"max_tokens": 500}, config_path=cfg, env={"HIPPO_MAX_TOKENS": "400"}).max_tokens == 500
    )
    with pytest.raises(ConfigError, match=r"^HIPPO_MAX_TOKENS \(environment\): "):
        load_settings({}, env={"HIPPO_MAX_TOKENS": "lots"})
    with pytest.raises(ConfigError, match=r"^--max-tokens: .*greater than or equal to 16"):
        load_settings({"max_tokens": 0}, env={})


def test_settings_check_every_value_and_assignment_and_hide_the_api_key(tmp_path):
    s = Settings(home=str(tmp_path), max_tokens="300", api_key="sk-secret")
    assert (s.home, s.max_tokens, s.keys) == (tmp_path, 300, {})  # converted like the file's and env's values
    assert s.model_fields_set == {"home", "max_tokens", "api_key"}
    assert "sk-secret" not in repr(s) and "max_tokens=300" in repr(s)
    with pytest.raises(SettingError, match="greater than 0"):
        s.grounding_timeout = 0
    with pytest.raises(SettingError, match="unknown key"):
        Settings(modle="m")
    with pytest.raises(SettingError) as e:
        Settings(keys={"help": 3})
    assert e.value.loc == ("keys", "help")
    copy = s.model_copy(update={"theme": "nord"})
    assert (copy.theme, copy.home, s.theme) == ("nord", tmp_path, None)
    assert Settings.model_validate(s.model_dump()) == s


def test_a_config_that_is_not_a_small_regular_file_is_refused_unread(tmp_path):
    # /dev/zero (or a FIFO, or a 1 GB file) would be read until memory runs out.
    with pytest.raises(ConfigError, match="not a regular file"):
        load_settings({}, env={"HIPPO_CONFIG": "/dev/zero"})
    big = tmp_path / "config.toml"
    big.write_text("# " + "x" * 1_100_000 + "\n")
    with pytest.raises(ConfigError, match="may be at most 1,000,000"):
        load_settings({}, env={"HIPPO_CONFIG": str(big)})


@pytest.mark.parametrize(
    "text",
    ["max_tokens = " + "9" * 5000 + "\n", "x = " + "[" * 3000 + "]" * 3000 + "\n"],
    ids=["5,000-digit number", "arrays nested 3,000 deep"],
)
def test_a_config_too_large_to_read_is_a_clear_error(tmp_path, text):
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match="a number or a nesting far too large"):
        load_settings({}, env={"HIPPO_CONFIG": str(cfg)})


def test_a_config_key_is_echoed_inert(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('"\\u001b[31mevil\\nnew line" = 1\n')
    with pytest.raises(ConfigError) as e:
        load_settings({}, env={"HIPPO_CONFIG": str(cfg)})
    assert "\x1b" not in str(e.value) and "\n" not in str(e.value) and "unknown key" in str(e.value)
