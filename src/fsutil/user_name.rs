//! A uid's login name, for the words of a refusal only.
//!
//! A build linked against the shared glibc asks the system's name service
//! (`/etc/nsswitch.conf`: the files, LDAP, whatever it names). The shipped
//! build is linked statically (`scripts/build-release.sh`: the launcher and
//! the hook, run for every harness start, start in about half the time),
//! and a static glibc reaches the name service only by loading the shared
//! modules of its own glibc version at run time, which a machine with
//! another version does not have. There the name comes from `/etc/passwd`
//! alone, and a uid it does not list is said as its number.

/// The login name of `uid`, if the system knows one.
#[cfg(not(target_feature = "crt-static"))]
pub fn of(uid: u32) -> Option<String> {
    nix::unistd::User::from_uid(uid.into())
        .ok()
        .flatten()
        .map(|user| user.name)
}

/// The login name of `uid`, as `/etc/passwd` lists it. Read here rather
/// than through [`crate::bounded_read`], which checks owners with this
/// module's names; bounded the same way: a regular file only, opened
/// without blocking, and never read past its cap.
#[cfg(target_feature = "crt-static")]
pub fn of(uid: u32) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    /// A directory of many thousand users fits.
    const PASSWD_CAP: u64 = 16 * 1024 * 1024;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open("/etc/passwd")
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = Vec::new();
    file.take(PASSWD_CAP).read_to_end(&mut text).ok()?;
    in_passwd(&String::from_utf8_lossy(&text), uid)
}

/// The name the first `/etc/passwd` line with `uid` in its third field
/// gives (`name:password:uid:gid:…`).
#[cfg(any(test, target_feature = "crt-static"))]
fn in_passwd(text: &str, uid: u32) -> Option<String> {
    text.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        let listed: u32 = fields.nth(1)?.parse().ok()?;
        (listed == uid && !name.is_empty() && !name.starts_with('#')).then(|| name.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWD: &str = "\
# a comment:x:7:7
root:x:0:0:root:/root:/bin/bash
:x:5:5::/:/bin/false
broken line
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
ops:x:1000:1000:,,,:/home/ops:/bin/bash
shadow-of-ops:x:1000:1000::/home/x:/bin/sh
";

    #[test]
    fn the_first_line_with_the_uid_names_it() {
        assert_eq!(in_passwd(PASSWD, 0).as_deref(), Some("root"));
        assert_eq!(in_passwd(PASSWD, 65534).as_deref(), Some("nobody"));
        assert_eq!(in_passwd(PASSWD, 1000).as_deref(), Some("ops"));
    }

    #[test]
    fn a_comment_an_empty_name_or_an_unlisted_uid_names_nobody() {
        assert_eq!(in_passwd(PASSWD, 7), None);
        assert_eq!(in_passwd(PASSWD, 5), None);
        assert_eq!(in_passwd(PASSWD, 4242), None);
        assert_eq!(in_passwd("", 0), None);
    }

    #[test]
    fn this_machine_names_root_as_the_name_service_does() {
        // The static build's reading agrees with the shared glibc's on the
        // machine the tests run on (root is in every /etc/passwd).
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
        assert_eq!(in_passwd(&passwd, 0), of(0));
    }
}
