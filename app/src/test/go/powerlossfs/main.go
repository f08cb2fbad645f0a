// powerlossfs mounts a directory as a pass-through FUSE file system that can forget, on SIGUSR1,
// every write not yet made durable by an fsync of its file: what a machine's power loss does to a
// disk's write-back cache. Metadata (create, rename, unlink, mkdir) is durable at once, as a
// journaling file system's is. Writes go through to the backing directory at once; the first write
// to a block since its file's last fsync keeps the block's earlier bytes, and the file's size then,
// so that a power loss can put them back. Writes to files opened O_SYNC or O_DSYNC are durable.
//
//	powerlossfs BACKING MOUNTPOINT
//
// It prints "mounted" once the mount is up; SIGUSR1 restores every file to its last fsync and
// prints "lost N blocks of M files"; SIGTERM unmounts.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

const blockSize = 4096

// unsynced is what a file held at its last fsync, for the blocks written since.
type unsynced struct {
	fd         int   // the file, opened again for reading and restoring
	syncedSize int64 // its size at its last fsync
	blocks     map[int64][]byte
}

var (
	mu    sync.Mutex
	files = map[uint64]*unsynced{} // by inode number in the backing file system
)

// keep records, before a write or truncation of [from, to) of the file open as fd, what it held.
func keep(fd int, from, to int64) {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	u := files[st.Ino]
	if u == nil {
		again, err := syscall.Open(fmt.Sprintf("/proc/self/fd/%d", fd), syscall.O_RDWR, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "powerlossfs: cannot reopen a written file:", err)
			return
		}
		u = &unsynced{fd: again, syncedSize: st.Size, blocks: map[int64][]byte{}}
		files[st.Ino] = u
	}
	for b := from / blockSize; b*blockSize < to && b*blockSize < u.syncedSize; b++ {
		if _, ok := u.blocks[b]; ok {
			continue
		}
		old := make([]byte, blockSize)
		n, _ := syscall.Pread(u.fd, old, b*blockSize)
		if n < 0 {
			n = 0
		}
		u.blocks[b] = old[:n]
	}
}

// synced forgets what the file open as fd held before: it is durable now.
func synced(fd int) {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if u := files[st.Ino]; u != nil {
		syscall.Close(u.fd)
		delete(files, st.Ino)
	}
}

// powerLoss puts every file back as it was at its last fsync.
func powerLoss() (blocks, count int) {
	mu.Lock()
	defer mu.Unlock()
	for ino, u := range files {
		for b, old := range u.blocks {
			syscall.Pwrite(u.fd, old, b*blockSize)
			blocks++
		}
		syscall.Ftruncate(u.fd, u.syncedSize)
		syscall.Fsync(u.fd)
		syscall.Close(u.fd)
		delete(files, ino)
		count++
	}
	return blocks, count
}

type node struct{ fs.LoopbackNode }

type file struct {
	*fs.LoopbackFile
	fd      int
	durable bool // opened O_SYNC or O_DSYNC
}

func wrap(f fs.FileHandle, flags uint32) fs.FileHandle {
	lf := f.(*fs.LoopbackFile)
	fd, _ := lf.PassthroughFd()
	return &file{LoopbackFile: lf, fd: fd, durable: flags&(syscall.O_SYNC|syscall.O_DSYNC) != 0}
}

// PassthroughFd says no: with the kernel's FUSE passthrough, writes would not come here.
func (f *file) PassthroughFd() (int, bool) { return 0, false }

func (f *file) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	if !f.durable {
		keep(f.fd, off, off+int64(len(data)))
	}
	return f.LoopbackFile.Write(ctx, data, off)
}

func (f *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	errno := f.LoopbackFile.Fsync(ctx, flags)
	if errno == 0 {
		synced(f.fd)
	}
	return errno
}

func (f *file) Allocate(ctx context.Context, off uint64, size uint64, mode uint32) syscall.Errno {
	keep(f.fd, int64(off), int64(off)) // the size it had
	return f.LoopbackFile.Allocate(ctx, off, size, mode)
}

func (f *file) Setattr(ctx context.Context, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		keep(f.fd, int64(size), 1<<62)
	}
	return f.LoopbackFile.Setattr(ctx, in, out)
}

func (n *node) full() string {
	return filepath.Join(n.RootData.Path, n.EmbeddedInode().Path(nil))
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_TRUNC != 0 {
		if fd, err := syscall.Open(n.full(), syscall.O_RDONLY, 0); err == nil {
			keep(fd, 0, 1<<62)
			syscall.Close(fd)
		}
	}
	f, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return wrap(f, flags), fuseFlags, 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	inode, f, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	return inode, wrap(f, flags), fuseFlags, 0
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok && f == nil {
		if fd, err := syscall.Open(n.full(), syscall.O_RDONLY, 0); err == nil {
			keep(fd, int64(size), 1<<62)
			syscall.Close(fd)
		}
	}
	return n.LoopbackNode.Setattr(ctx, f, in, out)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: powerlossfs BACKING MOUNTPOINT")
		os.Exit(2)
	}
	backing, mountpoint := os.Args[1], os.Args[2]
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		fmt.Fprintln(os.Stderr, "powerlossfs:", err)
		os.Exit(1)
	}
	root := &fs.LoopbackRoot{Path: backing, Dev: uint64(st.Dev)}
	root.NewNode = func(r *fs.LoopbackRoot, parent *fs.Inode, name string, st *syscall.Stat_t) fs.InodeEmbedder {
		return &node{fs.LoopbackNode{RootData: r}}
	}
	root.RootNode = root.NewNode(root, nil, "", &st)
	server, err := fs.Mount(mountpoint, root.RootNode, &fs.Options{
		MountOptions: fuse.MountOptions{AllowOther: true, DirectMount: true, FsName: backing, Name: "powerlossfs"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "powerlossfs: mount:", err)
		os.Exit(1)
	}
	fmt.Println("mounted")
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range signals {
			if s == syscall.SIGUSR1 {
				blocks, count := powerLoss()
				fmt.Printf("lost %d blocks of %d files\n", blocks, count)
				continue
			}
			server.Unmount()
			return
		}
	}()
	server.Wait()
}
