package com.bettercompute.application.port;

import com.bettercompute.application.port.ProviderException.Kind;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * An in-memory {@link SharedVolumeProvider} keeping the port's contract ({@code SharedVolumeProviderContract}): creates
 * and deletes take {@code operationDuration} on the injected clock; the bytes held and the NFS clients are set by the
 * test. Faults on demand. Thread-safe.
 */
public final class InMemorySharedVolumeProvider implements SharedVolumeProvider {
    private final Clock clock;
    private final Duration operationDuration;
    private final Map<String, Instance> instances = new LinkedHashMap<>();
    private final Map<String, Operation> operations = new LinkedHashMap<>();
    private final Deque<String> failingOperations = new ArrayDeque<>();
    /** method name (or {@code *}) to the refusals its next calls get */
    private final Map<String, Deque<ProviderException>> failingCalls = new LinkedHashMap<>();
    private final Map<String, Integer> calls = new LinkedHashMap<>();
    private int sequence;

    public InMemorySharedVolumeProvider(Clock clock, Duration operationDuration) {
        this.clock = clock;
        this.operationDuration = operationDuration;
    }

    private static final class Instance {
        String volumeId;
        int sizeGiB;
        Status status = Status.CREATING;
        String message;
        long bytes;
        final List<String> clients = new ArrayList<>();
    }

    private record Operation(String key, Instance instance, Instant doneAt, String error, boolean delete) {}

    @Override
    public synchronized VolumeObservation observe(VolumeLocator at) {
        count("observe");
        settle();
        Instance i = instances.get(at.toString());
        if (i == null) {
            return VolumeObservation.absent();
        }
        return new VolumeObservation(true, i.volumeId, i.status, i.message, i.status == Status.READY ? "10.0.0.2" : null, "shared",
                i.sizeGiB, i.clients);
    }

    @Override
    public synchronized String create(VolumeSpec spec) {
        count("create");
        settle();
        Instance existing = instances.get(spec.at().toString());
        if (existing != null) {
            if (!spec.volumeId().equals(existing.volumeId)) {
                throw new ProviderException(Kind.FOREIGN, "Instance " + spec.at().name() + " exists and was not created by better-compute.");
            }
            return null;
        }
        if (spec.sizeGiB() < 1024) {
            throw new ProviderException(Kind.INVALID, "BASIC_HDD instances are at least 1024 GiB, not " + spec.sizeGiB() + ".");
        }
        Instance i = new Instance();
        i.volumeId = spec.volumeId();
        i.sizeGiB = spec.sizeGiB();
        instances.put(spec.at().toString(), i);
        return start(spec.at().toString(), false);
    }

    @Override
    public synchronized String delete(VolumeLocator at, String volumeId) {
        count("delete");
        settle();
        Instance i = instances.get(at.toString());
        if (i == null || i.status == Status.DELETING) {
            return null;
        }
        if (!volumeId.equals(i.volumeId)) {
            throw new ProviderException(Kind.FOREIGN, "Instance " + at.name() + " was not created by better-compute.");
        }
        i.status = Status.DELETING;
        return start(at.toString(), true);
    }

    @Override
    public synchronized OperationStatus operation(VolumeLocator at, String name) {
        count("operation");
        settle();
        Operation op = name == null ? null : operations.get(name);
        if (op == null) {
            return OperationStatus.SUCCEEDED;
        }
        if (clock.instant().isBefore(op.doneAt())) {
            return OperationStatus.RUNNING;
        }
        return op.error() == null ? OperationStatus.SUCCEEDED : OperationStatus.failed(op.error());
    }

    @Override
    public synchronized OptionalLong usedBytes(VolumeLocator at) {
        count("usedBytes");
        settle();
        Instance i = instances.get(at.toString());
        if (i == null) {
            throw new ProviderException(Kind.NOT_FOUND, "Instance " + at.name() + " was not found.");
        }
        return i.status == Status.READY ? OptionalLong.of(i.bytes) : OptionalLong.empty();
    }

    private String start(String key, boolean delete) {
        String name = "projects/p/locations/l/operations/op-" + (++sequence);
        operations.put(name, new Operation(key, instances.get(key), clock.instant().plus(operationDuration), failingOperations.poll(), delete));
        return name;
    }

    /** Finishes what is due: a create makes the instance ready (or in error), a delete removes it. */
    private void settle() {
        Instant now = clock.instant();
        for (Operation op : operations.values()) {
            Instance i = instances.get(op.key());
            // an operation acts on the instance it started on, never on one made later under the same name
            if (i == null || i != op.instance() || now.isBefore(op.doneAt())) {
                continue;
            }
            if (op.delete() && i.status == Status.DELETING) {
                if (op.error() == null) {
                    instances.remove(op.key());
                } else {
                    i.status = Status.READY;
                }
            } else if (!op.delete() && i.status == Status.CREATING) {
                i.status = op.error() == null ? Status.READY : Status.ERROR;
                i.message = op.error();
            }
        }
    }

    private void count(String method) {
        calls.merge(method, 1, Integer::sum);
        for (String key : List.of(method, "*")) {
            Deque<ProviderException> q = failingCalls.get(key);
            if (q != null && !q.isEmpty()) {
                throw q.poll();
            }
        }
    }

    // ------------------------------------------------------------ test controls

    public synchronized void failNextOperation(String message) {
        failingOperations.add(message);
    }

    /** The next call of {@code method} ({@code create}, {@code observe}…, or {@code *}) is refused with {@code e}. */
    public synchronized void failNextCall(String method, ProviderException e) {
        failingCalls.computeIfAbsent(method, k -> new ArrayDeque<>()).add(e);
    }

    public synchronized void putForeign(VolumeLocator at) {
        Instance i = new Instance();
        i.volumeId = null;
        i.sizeGiB = 1024;
        i.status = Status.READY;
        instances.put(at.toString(), i);
    }

    public synchronized void holdBytes(VolumeLocator at, long bytes) {
        instances.get(at.toString()).bytes = bytes;
    }

    public synchronized void mountedBy(VolumeLocator at, String node) {
        instances.get(at.toString()).clients.add(node);
    }

    public synchronized boolean exists(VolumeLocator at) {
        settle();
        return instances.containsKey(at.toString());
    }

    public synchronized int instanceCount() {
        settle();
        return instances.size();
    }

    public synchronized int calls(String method) {
        return calls.getOrDefault(method, 0);
    }
}
