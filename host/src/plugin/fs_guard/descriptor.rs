//! `wasi:filesystem/types` for [`GuardedFs`]: every method delegates to wasmtime's own
//! implementation; the path-taking ones first go through the checks of [`super::ops`], and
//! directory listings leave denied entries out. Without a guard, everything is delegated as is.

use wasmtime::component::Resource;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    self as fs, Advice, DescriptorFlags, DescriptorStat, DescriptorType, DirectoryEntry,
    DirectoryEntryStream, Filesize, Host, HostDescriptor, HostDirectoryEntryStream,
    MetadataHashValue, NewTimestamp, OpenFlags, PathFlags,
};
use wasmtime_wasi::p2::bindings::sync::io::streams;
use wasmtime_wasi::p2::{FsError, FsResult};

use super::GuardedFs;
use super::ops::{Access, borrow};

type Fd = Resource<fs::Descriptor>;

impl Host for GuardedFs<'_> {
    fn convert_error_code(&mut self, err: FsError) -> wasmtime::Result<fs::ErrorCode> {
        Host::convert_error_code(&mut self.fs, err)
    }

    fn filesystem_error_code(
        &mut self,
        err: Resource<streams::Error>,
    ) -> wasmtime::Result<Option<fs::ErrorCode>> {
        Host::filesystem_error_code(&mut self.fs, err)
    }
}

impl HostDescriptor for GuardedFs<'_> {
    fn advise(&mut self, fd: Fd, offset: Filesize, len: Filesize, advice: Advice) -> FsResult<()> {
        HostDescriptor::advise(&mut self.fs, fd, offset, len, advice)
    }

    fn sync_data(&mut self, fd: Fd) -> FsResult<()> {
        HostDescriptor::sync_data(&mut self.fs, fd)
    }

    fn get_flags(&mut self, fd: Fd) -> FsResult<DescriptorFlags> {
        HostDescriptor::get_flags(&mut self.fs, fd)
    }

    fn get_type(&mut self, fd: Fd) -> FsResult<DescriptorType> {
        HostDescriptor::get_type(&mut self.fs, fd)
    }

    fn set_size(&mut self, fd: Fd, size: Filesize) -> FsResult<()> {
        if self.guard.is_some() {
            let real = self.real_of(&fd)?;
            self.check(&real, Access::Write)?;
        }
        HostDescriptor::set_size(&mut self.fs, fd, size)
    }

    fn set_times(&mut self, fd: Fd, atim: NewTimestamp, mtim: NewTimestamp) -> FsResult<()> {
        if self.guard.is_some() {
            let real = self.real_of(&fd)?;
            self.check(&real, Access::Write)?;
        }
        HostDescriptor::set_times(&mut self.fs, fd, atim, mtim)
    }

    fn read(&mut self, fd: Fd, len: Filesize, offset: Filesize) -> FsResult<(Vec<u8>, bool)> {
        HostDescriptor::read(&mut self.fs, fd, len, offset)
    }

    fn write(&mut self, fd: Fd, buf: Vec<u8>, offset: Filesize) -> FsResult<Filesize> {
        HostDescriptor::write(&mut self.fs, fd, buf, offset)
    }

    fn read_directory(&mut self, fd: Fd) -> FsResult<Resource<DirectoryEntryStream>> {
        if self.guard.is_none() {
            return HostDescriptor::read_directory(&mut self.fs, fd);
        }
        let real = self.real_of(&fd)?;
        self.check(&real, Access::Read)?;
        let stream = HostDescriptor::read_directory(&mut self.fs, fd)?;
        if let Some(guard) = self.guard.as_deref_mut() {
            guard.streams.insert(stream.rep(), real);
        }
        Ok(stream)
    }

    fn sync(&mut self, fd: Fd) -> FsResult<()> {
        HostDescriptor::sync(&mut self.fs, fd)
    }

    fn create_directory_at(&mut self, fd: Fd, path: String) -> FsResult<()> {
        if self.guard.is_none() {
            return HostDescriptor::create_directory_at(&mut self.fs, fd, path);
        }
        self.at(&fd, &path, Access::Write, |this, p| {
            HostDescriptor::create_directory_at(&mut this.fs, borrow(&p.dir), p.name.clone())
        })
    }

    fn stat(&mut self, fd: Fd) -> FsResult<DescriptorStat> {
        HostDescriptor::stat(&mut self.fs, fd)
    }

    fn stat_at(&mut self, fd: Fd, flags: PathFlags, path: String) -> FsResult<DescriptorStat> {
        if self.guard.is_none() {
            return HostDescriptor::stat_at(&mut self.fs, fd, flags, path);
        }
        self.at(&fd, &path, Access::Read, |this, p| {
            this.followed(p, flags.contains(PathFlags::SYMLINK_FOLLOW))?;
            HostDescriptor::stat_at(&mut this.fs, borrow(&p.dir), flags, p.name.clone())
        })
    }

    fn set_times_at(
        &mut self,
        fd: Fd,
        flags: PathFlags,
        path: String,
        atim: NewTimestamp,
        mtim: NewTimestamp,
    ) -> FsResult<()> {
        if self.guard.is_none() {
            return HostDescriptor::set_times_at(&mut self.fs, fd, flags, path, atim, mtim);
        }
        self.at(&fd, &path, Access::Write, |this, p| {
            if flags.contains(PathFlags::SYMLINK_FOLLOW) {
                this.no_symlink(p)?;
            }
            HostDescriptor::set_times_at(
                &mut this.fs,
                borrow(&p.dir),
                flags,
                p.name.clone(),
                atim,
                mtim,
            )
        })
    }

    fn link_at(
        &mut self,
        fd: Fd,
        old_flags: PathFlags,
        old_path: String,
        new_fd: Fd,
        new_path: String,
    ) -> FsResult<()> {
        if self.guard.is_none() {
            return HostDescriptor::link_at(
                &mut self.fs,
                fd,
                old_flags,
                old_path,
                new_fd,
                new_path,
            );
        }
        let old = self.parent(&fd, &old_path, Access::Write)?;
        let result = self.at(&new_fd, &new_path, Access::Write, |this, new| {
            HostDescriptor::link_at(
                &mut this.fs,
                borrow(&old.dir),
                old_flags,
                old.name.clone(),
                borrow(&new.dir),
                new.name.clone(),
            )
        });
        self.release(old)?;
        result
    }

    fn open_at(
        &mut self,
        fd: Fd,
        path_flags: PathFlags,
        path: String,
        oflags: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<Fd> {
        if self.guard.is_none() {
            return HostDescriptor::open_at(&mut self.fs, fd, path_flags, path, oflags, flags);
        }
        let writes = flags.contains(DescriptorFlags::WRITE)
            || oflags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE | OpenFlags::EXCLUSIVE);
        let opened = if writes {
            self.at(&fd, &path, Access::Write, |this, p| {
                this.no_symlink(p)?;
                HostDescriptor::open_at(
                    &mut this.fs,
                    borrow(&p.dir),
                    path_flags & !PathFlags::SYMLINK_FOLLOW,
                    p.name.clone(),
                    oflags,
                    flags,
                )
            })?
        } else {
            HostDescriptor::open_at(&mut self.fs, fd, path_flags, path, oflags, flags)?
        };
        // What was opened, as the kernel names it (for a write, a second look).
        let access = if writes { Access::Write } else { Access::Read };
        let checked = self
            .real_of(&opened)
            .and_then(|real| self.check(&real, access));
        match checked {
            Ok(()) => Ok(opened),
            Err(err) => {
                HostDescriptor::drop(&mut self.fs, opened).map_err(FsError::trap)?;
                Err(err)
            }
        }
    }

    fn drop(&mut self, fd: Fd) -> wasmtime::Result<()> {
        HostDescriptor::drop(&mut self.fs, fd)
    }

    fn readlink_at(&mut self, fd: Fd, path: String) -> FsResult<String> {
        if self.guard.is_none() {
            return HostDescriptor::readlink_at(&mut self.fs, fd, path);
        }
        self.at(&fd, &path, Access::Read, |this, p| {
            HostDescriptor::readlink_at(&mut this.fs, borrow(&p.dir), p.name.clone())
        })
    }

    fn remove_directory_at(&mut self, fd: Fd, path: String) -> FsResult<()> {
        if self.guard.is_none() {
            return HostDescriptor::remove_directory_at(&mut self.fs, fd, path);
        }
        self.at(&fd, &path, Access::Write, |this, p| {
            HostDescriptor::remove_directory_at(&mut this.fs, borrow(&p.dir), p.name.clone())
        })
    }

    fn rename_at(
        &mut self,
        fd: Fd,
        old_path: String,
        new_fd: Fd,
        new_path: String,
    ) -> FsResult<()> {
        if self.guard.is_none() {
            return HostDescriptor::rename_at(&mut self.fs, fd, old_path, new_fd, new_path);
        }
        let old = self.parent(&fd, &old_path, Access::Write)?;
        let result = self.at(&new_fd, &new_path, Access::Write, |this, new| {
            HostDescriptor::rename_at(
                &mut this.fs,
                borrow(&old.dir),
                old.name.clone(),
                borrow(&new.dir),
                new.name.clone(),
            )
        });
        self.release(old)?;
        result
    }

    fn symlink_at(&mut self, fd: Fd, target: String, link: String) -> FsResult<()> {
        if self.guard.is_none() {
            return HostDescriptor::symlink_at(&mut self.fs, fd, target, link);
        }
        self.at(&fd, &link, Access::Write, |this, p| {
            let refused = this
                .guard
                .as_deref()
                .and_then(|g| g.policy.check_symlink_target(&p.real, &target).err());
            if let Some(why) = refused {
                let shown = p.real.join(&target);
                return Err(this.refuse(&shown, why, Access::Write));
            }
            HostDescriptor::symlink_at(&mut this.fs, borrow(&p.dir), target.clone(), p.name.clone())
        })
    }

    fn unlink_file_at(&mut self, fd: Fd, path: String) -> FsResult<()> {
        if self.guard.is_none() {
            return HostDescriptor::unlink_file_at(&mut self.fs, fd, path);
        }
        self.at(&fd, &path, Access::Write, |this, p| {
            HostDescriptor::unlink_file_at(&mut this.fs, borrow(&p.dir), p.name.clone())
        })
    }

    fn read_via_stream(
        &mut self,
        fd: Fd,
        offset: Filesize,
    ) -> FsResult<Resource<streams::InputStream>> {
        HostDescriptor::read_via_stream(&mut self.fs, fd, offset)
    }

    fn write_via_stream(
        &mut self,
        fd: Fd,
        offset: Filesize,
    ) -> FsResult<Resource<streams::OutputStream>> {
        HostDescriptor::write_via_stream(&mut self.fs, fd, offset)
    }

    fn append_via_stream(&mut self, fd: Fd) -> FsResult<Resource<streams::OutputStream>> {
        HostDescriptor::append_via_stream(&mut self.fs, fd)
    }

    fn is_same_object(&mut self, a: Fd, b: Fd) -> wasmtime::Result<bool> {
        HostDescriptor::is_same_object(&mut self.fs, a, b)
    }

    fn metadata_hash(&mut self, fd: Fd) -> FsResult<MetadataHashValue> {
        HostDescriptor::metadata_hash(&mut self.fs, fd)
    }

    fn metadata_hash_at(
        &mut self,
        fd: Fd,
        flags: PathFlags,
        path: String,
    ) -> FsResult<MetadataHashValue> {
        if self.guard.is_none() {
            return HostDescriptor::metadata_hash_at(&mut self.fs, fd, flags, path);
        }
        self.at(&fd, &path, Access::Read, |this, p| {
            this.followed(p, flags.contains(PathFlags::SYMLINK_FOLLOW))?;
            HostDescriptor::metadata_hash_at(&mut this.fs, borrow(&p.dir), flags, p.name.clone())
        })
    }
}

impl HostDirectoryEntryStream for GuardedFs<'_> {
    fn read_directory_entry(
        &mut self,
        stream: Resource<DirectoryEntryStream>,
    ) -> FsResult<Option<DirectoryEntry>> {
        let dir = self
            .guard
            .as_deref()
            .and_then(|g| g.streams.get(&stream.rep()).cloned());
        let Some(dir) = dir else {
            return HostDirectoryEntryStream::read_directory_entry(&mut self.fs, stream);
        };
        loop {
            let entry =
                HostDirectoryEntryStream::read_directory_entry(&mut self.fs, borrow(&stream))?;
            match entry {
                Some(entry) => {
                    let denied = self
                        .guard
                        .as_deref()
                        .is_some_and(|g| g.policy.check_read(&dir.join(&entry.name)).is_err());
                    if !denied {
                        return Ok(Some(entry));
                    }
                }
                None => return Ok(None),
            }
        }
    }

    fn drop(&mut self, stream: Resource<DirectoryEntryStream>) -> wasmtime::Result<()> {
        if let Some(guard) = self.guard.as_deref_mut() {
            guard.streams.remove(&stream.rep());
        }
        HostDirectoryEntryStream::drop(&mut self.fs, stream)
    }
}
