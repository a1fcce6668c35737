//! Which `Host` a request may name: the defence against DNS rebinding.
//!
//! A web page the user visits can point a name of its own (`evil.example`)
//! at this machine and then read the server's answers as its own origin:
//! the browser sends `Host: evil.example:8080`. So a request must name the
//! server by a name the operator chose: a loopback name, one of the
//! addresses the server listens on (every address of the machine when it
//! listens on all of them), or a name given with `--allow-host`. An address
//! written as a number cannot be rebound, and a name the operator gives is
//! theirs; anything else is refused, whatever address the server binds.
//! The port, when the request gives one, must be the server's own.

use std::net::IpAddr;

/// The hosts a server answers to.
#[derive(Clone, Debug)]
pub struct HostCheck {
    /// Addresses by number (`127.0.0.1`, `[::1]`, the machine's own).
    addresses: Vec<IpAddr>,
    /// Names, lower case (`localhost`, and those of `--allow-host`).
    names: Vec<String>,
    /// The port the server listens on.
    port: u16,
}

impl HostCheck {
    /// The check for a server listening on `bound:port`, answering also to
    /// the names in `allowed` (compared without regard to case).
    pub fn new(bound: IpAddr, port: u16, allowed: &[String]) -> HostCheck {
        let mut addresses: Vec<IpAddr> = vec![
            IpAddr::from([127, 0, 0, 1]),
            IpAddr::from(std::net::Ipv6Addr::LOCALHOST),
        ];
        if bound.is_unspecified() {
            addresses.extend(own_addresses());
        } else {
            addresses.push(bound);
        }
        let mut names = vec!["localhost".to_string()];
        names.extend(allowed.iter().map(|n| n.trim().to_ascii_lowercase()));
        HostCheck {
            addresses,
            names,
            port,
        }
    }

    /// Whether `host`, the value of a `Host` header, names this server.
    pub fn accepts(&self, host: &str) -> bool {
        let (name, rest) = match host.strip_prefix('[') {
            Some(v6) => match v6.split_once(']') {
                Some((inside, rest)) => (inside, rest),
                None => return false,
            },
            // A bare IPv6 address is not a valid Host (it must be
            // bracketed), so one colon at most: the port's.
            None if host.matches(':').count() > 1 => return false,
            None => host.find(':').map_or((host, ""), |i| host.split_at(i)),
        };
        let port_ok = match rest {
            "" => true,
            _ => rest
                .strip_prefix(':')
                .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|p| p.parse::<u16>().ok())
                .is_some_and(|p| p == self.port),
        };
        if !port_ok || name.is_empty() {
            return false;
        }
        // 127.1 and friends parse as names here, and are refused: only the
        // canonical forms count.
        match name.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || self.addresses.contains(&ip),
            Err(_) => {
                let name = name.strip_suffix('.').unwrap_or(name);
                self.names.iter().any(|n| n.eq_ignore_ascii_case(name))
            }
        }
    }

    /// The names and addresses accepted, for a message.
    pub fn describe(&self) -> String {
        let mut all: Vec<String> = self.names.clone();
        all.extend(self.addresses.iter().map(|a| match a {
            IpAddr::V6(v6) => format!("[{v6}]"),
            IpAddr::V4(v4) => v4.to_string(),
        }));
        all.dedup();
        all.join(", ")
    }
}

/// Every address of the machine's network interfaces. (The standard
/// library has no way to list them; getifaddrs is the system's.)
#[cfg(unix)]
#[allow(unsafe_code)]
fn own_addresses() -> Vec<IpAddr> {
    let mut found = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a pointer to a list it allocates into
    // `list`, which is only read below if it returned 0, then freed once.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return found;
    }
    let mut at = list;
    while !at.is_null() {
        // SAFETY: `at` is a node of the list getifaddrs made, not yet
        // freed; `ifa_addr` is null or points to a sockaddr whose family
        // says which struct it is, and only those two families are read.
        unsafe {
            let entry = &*at;
            let addr = entry.ifa_addr;
            if !addr.is_null() {
                match i32::from((*addr).sa_family) {
                    libc::AF_INET => {
                        let v4 = &*(addr as *const libc::sockaddr_in);
                        found.push(IpAddr::from(u32::from_be(v4.sin_addr.s_addr).to_be_bytes()));
                    }
                    libc::AF_INET6 => {
                        let v6 = &*(addr as *const libc::sockaddr_in6);
                        found.push(IpAddr::from(v6.sin6_addr.s6_addr));
                    }
                    _ => {}
                }
            }
            at = entry.ifa_next;
        }
    }
    // SAFETY: `list` came from a successful getifaddrs and is freed once;
    // nothing read from it is kept (the addresses were copied).
    unsafe { libc::freeifaddrs(list) };
    found
}

/// Without getifaddrs, only the loopback names and the bound address.
#[cfg(not(unix))]
fn own_addresses() -> Vec<IpAddr> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_with_the_servers_port_are_accepted() {
        let check = HostCheck::new(IpAddr::from([127, 0, 0, 1]), 8080, &[]);
        for host in [
            "localhost",
            "LocalHost:8080",
            "localhost.:8080",
            "127.0.0.1:8080",
            "127.0.0.1",
            "[::1]:8080",
            "[::1]",
        ] {
            assert!(check.accepts(host), "{host}");
        }
        for host in [
            "localhost:99999999999",
            "localhost:8081",
            "localhost:",
            "localhost:+8080",
            "evil.example:8080",
            "[::1].evil.example",
            "[::1]evil.example:80",
            "127.0.0.1:80x",
            "::1",
            "",
            "192.168.1.20:8080",
        ] {
            assert!(!check.accepts(host), "{host}");
        }
    }

    #[test]
    fn off_loopback_the_bound_address_and_given_names_are_accepted() {
        let bound = IpAddr::from([192, 168, 1, 20]);
        let check = HostCheck::new(bound, 8080, &["Board.Lan".into()]);
        for host in ["192.168.1.20:8080", "board.lan:8080", "localhost:8080"] {
            assert!(check.accepts(host), "{host}");
        }
        for host in ["evil.example:8080", "192.168.1.21:8080", "board.lan:80"] {
            assert!(!check.accepts(host), "{host}");
        }
    }

    #[test]
    fn on_every_address_the_machines_own_are_accepted_and_names_are_not() {
        let check = HostCheck::new(IpAddr::from([0, 0, 0, 0]), 8080, &[]);
        // Loopback is an address of every machine.
        assert!(check.accepts("127.0.0.1:8080"));
        for ip in own_addresses() {
            let host = match ip {
                IpAddr::V4(v4) => format!("{v4}:8080"),
                IpAddr::V6(v6) => format!("[{v6}]:8080"),
            };
            assert!(check.accepts(&host), "{host}");
        }
        assert!(!check.accepts("example.org:8080"));
        assert!(!check.accepts("203.0.113.9:8080"));
    }
}
