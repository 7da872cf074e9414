//! The sockets under `ssdlab serve`: a Unix socket or a TCP port of 127.0.0.1,
//! non-blocking, and the wait on them (ppoll, with the signal mask that lets SIGINT,
//! SIGTERM and SIGUSR1 in). Simplified: no TLS, no address but localhost.

use crate::{Listen, ServeError};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::io::{AsRawFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::time::Duration;

pub(crate) enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    pub(crate) fn fd(&self) -> RawFd {
        match self {
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tcp(s) => s.as_raw_fd(),
        }
    }
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
    pub(crate) fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }
}

pub(crate) enum Listener {
    Unix(UnixListener, String),
    Tcp(TcpListener),
}

pub(crate) fn bind(listen: &Listen) -> Result<(Listener, String), ServeError> {
    let usage = ServeError::Usage;
    match listen {
        Listen::Unix(path) => {
            let p = std::path::Path::new(path);
            if p.exists() {
                use std::os::unix::fs::FileTypeExt;
                let is_socket = std::fs::metadata(p).is_ok_and(|m| m.file_type().is_socket());
                if !is_socket {
                    return Err(usage(format!(
                        "--socket {path}: exists and is not a socket"
                    )));
                }
                if UnixStream::connect(p).is_ok() {
                    return Err(usage(format!(
                        "--socket {path}: another server is listening there"
                    )));
                }
                let _ = std::fs::remove_file(p); // a stale socket
            }
            let l = UnixListener::bind(p)
                .map_err(|e| usage(format!("--socket {path}: cannot listen: {e}")))?;
            l.set_nonblocking(true)
                .map_err(|e| usage(format!("--socket {path}: {e}")))?;
            Ok((
                Listener::Unix(l, path.clone()),
                format!("nbd+unix:///?socket={path}"),
            ))
        }
        Listen::Tcp(port) => {
            let l = TcpListener::bind(("127.0.0.1", *port))
                .map_err(|e| usage(format!("--port {port}: cannot listen on 127.0.0.1: {e}")))?;
            l.set_nonblocking(true)
                .map_err(|e| usage(format!("--port {port}: {e}")))?;
            let actual = l.local_addr().map(|a| a.port()).unwrap_or(*port);
            Ok((Listener::Tcp(l), format!("nbd://127.0.0.1:{actual}")))
        }
    }
}

impl Listener {
    pub(crate) fn fd(&self) -> RawFd {
        match self {
            Listener::Unix(l, _) => l.as_raw_fd(),
            Listener::Tcp(l) => l.as_raw_fd(),
        }
    }
    pub(crate) fn accept(&self) -> Option<Stream> {
        let s = match self {
            Listener::Unix(l, _) => l.accept().ok().map(|(s, _)| Stream::Unix(s)),
            Listener::Tcp(l) => l.accept().ok().map(|(s, _)| {
                let _ = s.set_nodelay(true);
                Stream::Tcp(s)
            }),
        }?;
        let ok = match &s {
            Stream::Unix(u) => u.set_nonblocking(true),
            Stream::Tcp(t) => t.set_nonblocking(true),
        };
        ok.ok().map(|_| s)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Listener::Unix(_, path) = self {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Wait until a descriptor is ready or `timeout` passes (None: no limit); a signal
/// ends the wait early. Returns ppoll's result (0: the time ran out).
pub(crate) fn wait(
    fds: &mut [libc::pollfd],
    timeout: Option<Duration>,
    mask: *const libc::sigset_t,
) -> i32 {
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: d.as_secs() as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let tp = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `fds` is a valid slice of pollfd; a null timespec means no limit; `mask`
    // points to a live sigset_t.
    unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, tp, mask) }
}
