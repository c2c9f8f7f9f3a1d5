package com.bettercompute.adapters.gke.simulator;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulator's state on disk: one append-only file of batches, each the entries one acknowledged
 * change wrote, framed as {@code [length][crc32][count, then each entry's length and bytes]} and made
 * durable ({@code fsync}) before the change is answered. A batch is all or nothing: a crash in the
 * middle of an append leaves a torn last batch, which fails its length or checksum and is dropped on
 * the next start (it was never answered). The file is compacted — the whole state written to a temp
 * file, fsynced and renamed over it — at every start, after a failed append, and when it has grown to
 * several times its compacted size.
 *
 * <p>Not thread-safe: the simulator calls it under its one lock.
 */
final class StateLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StateLog.class);
    private static final byte[] MAGIC = "BCGKESIM1\n".getBytes(StandardCharsets.US_ASCII);
    static final String FILE = "gke-state.log";
    /** Compact once the file is this many times its size after the last compaction (and past {@link #MIN_COMPACT}). */
    private static final int GROWTH = 4;
    private static final long MIN_COMPACT = 1 << 20;

    private final Path file;
    /** Held while open: a second simulator on the same directory would interleave its writes with ours. */
    private final FileChannel lockFile;
    private FileChannel channel;
    private long compactedSize;
    private boolean broken;
    private boolean closed;

    private StateLog(Path directory) throws IOException {
        this.file = directory.resolve(FILE);
        this.lockFile = FileChannel.open(directory.resolve(FILE + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        boolean locked;
        try {
            locked = lockFile.tryLock() != null;
        } catch (java.nio.channels.OverlappingFileLockException e) {
            locked = false;
        }
        if (!locked) {
            lockFile.close();
            throw new IOException("the state directory " + directory + " is in use by another GKE simulator");
        }
    }

    /**
     * Opens the log in {@code directory} (made if missing), hands every saved entry in order to
     * {@code replay}, then compacts it to what {@code everything} gives once the entries are applied.
     */
    static StateLog open(Path directory, Consumer<byte[]> replay, Supplier<List<byte[]>> everything) throws IOException {
        Files.createDirectories(directory);
        StateLog log = new StateLog(directory);
        try {
            if (Files.exists(log.file)) {
                log.read(replay);
            }
            log.rewrite(everything.get());
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
        return log;
    }

    private void read(Consumer<byte[]> replay) throws IOException {
        long size = Files.size(file);
        long good = 0;
        try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
            byte[] magic = new byte[MAGIC.length];
            in.readFully(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new IOException(file + " is not a GKE simulator state file");
            }
            good = MAGIC.length;
            while (true) {
                byte[] batch = readBatch(in, size - good);
                if (batch == null) {
                    break;
                }
                for (byte[] entry : entries(batch)) {
                    replay.accept(entry);
                }
                good += 8 + batch.length;
            }
        } catch (EOFException e) {
            // a file shorter than its magic: nothing was ever saved in it
        }
        if (good < size) {
            LOG.warn("gke simulator: dropped {} bytes of a change torn by a crash at the end of {}", size - good, file);
        }
    }

    /** The next batch, or null at the end or at a torn or corrupt one. */
    private static byte[] readBatch(DataInputStream in, long left) throws IOException {
        if (left < 8) {
            return null;
        }
        int length = in.readInt();
        int crc = in.readInt();
        if (length < 0 || length > left - 8) {
            return null;
        }
        byte[] batch = new byte[length];
        in.readFully(batch);
        return crc(batch) == crc ? batch : null;
    }

    private static List<byte[]> entries(byte[] batch) throws IOException {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(batch));
        int count = in.readInt();
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] entry = new byte[in.readInt()];
            in.readFully(entry);
            out.add(entry);
        }
        return out;
    }

    /**
     * Makes {@code changes} durable; compacts to {@code everything} instead when the file is due for it or
     * the last append failed. Returns once the bytes are on disk.
     */
    void append(List<byte[]> changes, Supplier<List<byte[]>> everything) throws IOException {
        if (closed) {
            throw new IOException("the simulator is stopping");
        }
        if (broken || channel.size() > Math.max(MIN_COMPACT, compactedSize * GROWTH)) {
            rewrite(everything.get());
            return;
        }
        try {
            ByteBuffer buffer = ByteBuffer.wrap(frame(changes));
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(false);
        } catch (IOException e) {
            // What reached the file may be a torn batch that later appends would hide behind: rewrite it all next time.
            broken = true;
            throw e;
        }
    }

    private void rewrite(List<byte[]> everything) throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
        }
        broken = true;
        Path temp = file.resolveSibling(FILE + ".tmp");
        try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(concat(MAGIC, frame(everything)));
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the state directory cannot rename atomically: " + file.getParent(), e);
        }
        syncDirectory(file.getParent());
        channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        compactedSize = channel.size();
        broken = false;
    }

    /** A rename is durable once its directory is: fsync it (possible on Linux and macOS, not on Windows). */
    private static void syncDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            if (!System.getProperty("os.name", "").startsWith("Windows")) {
                throw e;
            }
        }
    }

    private static byte[] frame(List<byte[]> entries) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(body);
        data.writeInt(entries.size());
        for (byte[] entry : entries) {
            data.writeInt(entry.length);
            data.write(entry);
        }
        byte[] batch = body.toByteArray();
        ByteArrayOutputStream framed = new ByteArrayOutputStream(batch.length + 8);
        DataOutputStream out = new DataOutputStream(framed);
        out.writeInt(batch.length);
        out.writeInt(crc(batch));
        out.write(batch);
        return framed.toByteArray();
    }

    private static int crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return (int) crc.getValue();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Override
    public void close() {
        closed = true;
        try {
            if (channel != null) {
                channel.close();
            }
            lockFile.close();
        } catch (IOException e) {
            LOG.warn("gke simulator: closing {} failed: {}", file, e.getMessage());
        }
    }
}
