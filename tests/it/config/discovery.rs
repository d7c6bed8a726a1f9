//! Where the config is found: the flag, the environment, the working directory, home.

use super::*;
use std::ffi::OsStr;
use std::path::Path;

/// A working directory and a home directory, each with or without a config.
struct Places {
    fixture: Fixture,
}

impl Places {
    fn new(local: bool, home: bool) -> Places {
        let fixture = Fixture::new();
        std::fs::create_dir_all(fixture.path("cwd")).unwrap();
        std::fs::create_dir_all(fixture.path("home")).unwrap();
        if local {
            fixture.write("cwd/.the-loop/cli-config.yaml", "");
        }
        if home {
            fixture.write("home/.the-loop/cli-config.yaml", "");
        }
        Places { fixture }
    }

    fn discover(
        &self,
        explicit: Option<&Path>,
        from_env: Option<&str>,
    ) -> Result<PathBuf, ConfigError> {
        let cwd = self.fixture.path("cwd");
        let home = self.fixture.path("home");
        config::discover_in(explicit, from_env.map(OsStr::new), &cwd, Some(&home))
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.fixture.path(relative)
    }
}

#[test]
fn the_flag_comes_first() {
    let places = Places::new(true, true);
    let flagged = places.fixture.write("flag.yaml", "");
    let from_env = places.fixture.write("env.yaml", "");
    let found = places.discover(Some(&flagged), from_env.to_str());
    assert_eq!(found.unwrap(), flagged);
}

#[test]
fn then_the_environment_variable() {
    let places = Places::new(true, true);
    let from_env = places.fixture.write("env.yaml", "");
    assert_eq!(places.discover(None, from_env.to_str()).unwrap(), from_env);
}

#[test]
fn an_empty_environment_variable_counts_as_unset() {
    let places = Places::new(true, true);
    let found = places.discover(None, Some("")).unwrap();
    assert_eq!(found, places.path("cwd/.the-loop/cli-config.yaml"));
}

#[test]
fn then_the_working_directory_then_home() {
    let places = Places::new(true, true);
    let found = places.discover(None, None).unwrap();
    assert_eq!(found, places.path("cwd/.the-loop/cli-config.yaml"));

    let places = Places::new(false, true);
    let found = places.discover(None, None).unwrap();
    assert_eq!(found, places.path("home/.the-loop/cli-config.yaml"));
}

#[test]
fn relative_names_are_made_absolute_against_the_working_directory() {
    let places = Places::new(false, false);
    places.fixture.write("cwd/conf/my.yaml", "");
    let found = places
        .discover(Some(Path::new("./conf/my.yaml")), None)
        .unwrap();
    assert_eq!(found, places.path("cwd/conf/my.yaml"));
    assert!(found.is_absolute());
}

#[test]
fn links_and_dot_dots_are_resolved_to_the_file() {
    let places = Places::new(false, false);
    let real = places.fixture.write("cwd/conf/my.yaml", "");
    let real = real.canonicalize().unwrap();
    let link = places.path("cwd/link.yaml");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    for named in ["link.yaml", "./conf/../conf/my.yaml", "conf/./my.yaml"] {
        let found = places.discover(Some(Path::new(named)), None).unwrap();
        assert_eq!(found, real, "{named}");
    }
    let found = places.discover(None, link.to_str()).unwrap();
    assert_eq!(found, real);
    // And a config loaded through the link is the file, whose relative
    // paths resolve beside it.
    let loaded = config::load(&link).unwrap();
    assert_eq!(loaded.path, real);
    assert_eq!(loaded.state_root, real.parent().unwrap());
}

#[test]
fn a_named_file_must_exist() {
    let places = Places::new(true, true);
    let missing = places.path("missing.yaml");
    for (flag, from_env) in [(Some(missing.as_path()), None), (None, missing.to_str())] {
        match places.discover(flag, from_env) {
            Err(ConfigError::Read { path, kind }) => {
                assert_eq!(path, missing);
                assert_eq!(kind, std::io::ErrorKind::NotFound);
            }
            other => panic!("expected a read error, got {other:?}"),
        }
    }
}

#[test]
fn nothing_found_says_where_it_looked() {
    let places = Places::new(false, false);
    let error = places.discover(None, None).unwrap_err();
    assert!(matches!(error, ConfigError::NotFound { .. }));
    insta::assert_snapshot!("not_found", places.fixture.shown(&error));
}
