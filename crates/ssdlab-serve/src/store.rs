//! The data behind the export: what was written, so that reads return it. Sparse in
//! memory (4 KiB pages allocated on first write; unwritten bytes read as zero) or a
//! backing file (extended, sparse, to the device's capacity; a read-only file is
//! refused, not served read-only: there is no read-only export). Trims and write-zeroes
//! zero the range (holes punched in a backing file where the file system allows).
//! Simplified: no durability ordering; a write is stored when it is received.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;

const PAGE_BYTES: u64 = 4096;

pub enum Store {
    Memory(HashMap<u64, Box<[u8]>>),
    File(File),
}

impl Store {
    pub fn memory() -> Store {
        Store::Memory(HashMap::new())
    }

    /// Open (or create) `path`, extending it to `size_bytes` if shorter. A file without
    /// write permission is refused (root could open it for writing all the same).
    pub fn file(path: &str, size_bytes: u64) -> Result<Store, String> {
        if let Ok(m) = std::fs::metadata(path) {
            use std::os::unix::fs::PermissionsExt;
            let mode = m.permissions().mode();
            if m.is_file() && mode & 0o222 == 0 {
                return Err(format!(
                    "--backing {path}: the file is read-only (mode {:o}); serve writes what \
                     clients write there and extends it to the drive's {size_bytes} bytes, so it \
                     is not opened (make it writable, e.g. chmod u+w, or give another file)",
                    mode & 0o7777
                ));
            }
        }
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| format!("--backing {path}: cannot open: {e}"))?;
        let len = f
            .metadata()
            .map_err(|e| format!("--backing {path}: {e}"))?
            .len();
        if len < size_bytes {
            f.set_len(size_bytes).map_err(|e| {
                format!("--backing {path}: cannot extend to {size_bytes} bytes: {e}")
            })?;
        }
        Ok(Store::File(f))
    }

    /// Bytes of written data held in memory (0 for a backing file).
    pub fn memory_bytes(&self) -> u64 {
        match self {
            Store::Memory(m) => m.len() as u64 * PAGE_BYTES,
            Store::File(_) => 0,
        }
    }

    pub fn read(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        match self {
            Store::File(f) => f.read_exact_at(buf, offset),
            Store::Memory(m) => {
                let mut done = 0usize;
                while done < buf.len() {
                    let at = offset + done as u64;
                    let (page, within) = (at / PAGE_BYTES, (at % PAGE_BYTES) as usize);
                    let n = (PAGE_BYTES as usize - within).min(buf.len() - done);
                    match m.get(&page) {
                        Some(p) => buf[done..done + n].copy_from_slice(&p[within..within + n]),
                        None => buf[done..done + n].fill(0),
                    }
                    done += n;
                }
                Ok(())
            }
        }
    }

    pub fn write(&mut self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        match self {
            Store::File(f) => f.write_all_at(data, offset),
            Store::Memory(m) => {
                let mut done = 0usize;
                while done < data.len() {
                    let at = offset + done as u64;
                    let (page, within) = (at / PAGE_BYTES, (at % PAGE_BYTES) as usize);
                    let n = (PAGE_BYTES as usize - within).min(data.len() - done);
                    let p = m
                        .entry(page)
                        .or_insert_with(|| vec![0u8; PAGE_BYTES as usize].into_boxed_slice());
                    p[within..within + n].copy_from_slice(&data[done..done + n]);
                    done += n;
                }
                Ok(())
            }
        }
    }

    pub fn zero(&mut self, offset: u64, len: u64) -> std::io::Result<()> {
        match self {
            Store::File(f) => {
                let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
                // SAFETY: fallocate on an open descriptor with plain integer arguments.
                let r = unsafe { libc::fallocate(f.as_raw_fd(), mode, offset as i64, len as i64) };
                if r == 0 {
                    return Ok(());
                }
                let zeros = vec![0u8; (1 << 20).min(len) as usize];
                let mut at = offset;
                while at < offset + len {
                    let n = (offset + len - at).min(zeros.len() as u64) as usize;
                    f.write_all_at(&zeros[..n], at)?;
                    at += n as u64;
                }
                Ok(())
            }
            Store::Memory(m) => {
                let end = offset + len;
                let mut at = offset;
                while at < end {
                    let (page, within) = (at / PAGE_BYTES, at % PAGE_BYTES);
                    let n = (PAGE_BYTES - within).min(end - at);
                    if n == PAGE_BYTES {
                        m.remove(&page);
                    } else if let Some(p) = m.get_mut(&page) {
                        p[within as usize..(within + n) as usize].fill(0);
                    }
                    at += n;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise(mut s: Store) {
        let mut buf = vec![1u8; 10_000];
        s.read(5000, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0), "unwritten reads as zero");
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8 + 1).collect();
        s.write(5000, &data).unwrap();
        s.read(5000, &mut buf).unwrap();
        assert_eq!(buf, data);
        s.zero(6000, 4096 * 2).unwrap();
        s.read(5000, &mut buf).unwrap();
        assert_eq!(&buf[..1000], &data[..1000]);
        assert!(buf[1000..1000 + 8192].iter().all(|&b| b == 0));
        assert_eq!(&buf[9192..], &data[9192..]);
    }

    #[test]
    fn memory_store_keeps_data_across_pages_and_zeroes_ranges() {
        exercise(Store::memory());
    }

    #[test]
    fn file_store_keeps_data_and_zeroes_ranges() {
        let path = std::env::temp_dir().join(format!("ssdlab-store-{}", std::process::id()));
        let p = path.to_str().unwrap().to_string();
        exercise(Store::file(&p, 1 << 20).unwrap());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 1 << 20);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_read_only_file_is_refused_and_left_as_it_was() {
        use std::os::unix::fs::PermissionsExt;
        let path = std::env::temp_dir().join(format!("ssdlab-store-ro-{}", std::process::id()));
        std::fs::write(&path, b"keep").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let p = path.to_str().unwrap().to_string();
        let e = Store::file(&p, 1 << 20).err().expect("refused");
        assert!(
            e.starts_with(&format!("--backing {p}: the file is read-only (mode 444)")),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"keep");
        std::fs::remove_file(&path).unwrap();
    }
}
