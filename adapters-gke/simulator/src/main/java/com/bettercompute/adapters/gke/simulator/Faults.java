package com.bettercompute.adapters.gke.simulator;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Faults applied to calls before the simulator's core sees them (both transports), and to the
 * operations the core starts. Thread-safe.
 */
final class Faults {
    private final Pause pause;
    private final Map<String, Deque<Status>> failingCalls = new LinkedHashMap<>();
    private final Deque<String> failingOperations = new ArrayDeque<>();
    private final Set<String> exhaustedProjects = new LinkedHashSet<>();
    private final Set<String> identityServiceRefusedProjects = new LinkedHashSet<>();
    private Duration latency = Duration.ZERO;

    Faults(Pause pause) {
        this.pause = pause;
    }

    /** Called by each transport before it hands a call of {@code method} (e.g. {@code CreateCluster}) to the core. */
    void beforeCall(String method) {
        Duration wait;
        Status failure;
        synchronized (this) {
            wait = latency;
            failure = poll(failingCalls.get(method));
            if (failure == null) {
                failure = poll(failingCalls.get("*"));
            }
        }
        if (!wait.isZero()) {
            pause.pause(wait);
        }
        if (failure != null) {
            throw new StatusRuntimeException(failure);
        }
    }

    private static Status poll(Deque<Status> queue) {
        return queue == null ? null : queue.poll();
    }

    synchronized void failCalls(String method, int count, Status status) {
        Deque<Status> queue = failingCalls.computeIfAbsent(method, m -> new ArrayDeque<>());
        for (int i = 0; i < count; i++) {
            queue.add(status);
        }
    }

    synchronized void failOperations(int count, String message) {
        for (int i = 0; i < count; i++) {
            failingOperations.add(message);
        }
    }

    /** The error message the next operation fails with, or null when it succeeds. */
    synchronized String nextOperationFailure() {
        return failingOperations.poll();
    }

    synchronized void exhaustQuota(String project) {
        exhaustedProjects.add(project);
    }

    synchronized void restoreQuota(String project) {
        exhaustedProjects.remove(project);
    }

    synchronized void checkQuota(String project, String what) {
        if (exhaustedProjects.contains(project) || exhaustedProjects.contains("*")) {
            throw Status.RESOURCE_EXHAUSTED.withDescription("Insufficient quota to satisfy the request: " + what
                    + " would exceed the quota of project \"" + project + "\".").asRuntimeException();
        }
    }

    synchronized void refuseIdentityService(String project) {
        identityServiceRefusedProjects.add(project);
    }

    /**
     * Refuses Identity Service for GKE on a Standard cluster of the project, as GKE does in an organization it no longer
     * offers it to (FAILED_PRECONDITION, the message naming it, as its refusal on Autopilot names it).
     */
    synchronized void checkIdentityService(String project) {
        if (identityServiceRefusedProjects.contains(project) || identityServiceRefusedProjects.contains("*")) {
            throw Status.FAILED_PRECONDITION.withDescription("Identity Service for GKE is not available to the organization of project \""
                    + project + "\".").asRuntimeException();
        }
    }

    synchronized void latency(Duration latency) {
        this.latency = latency;
    }

    synchronized void clear() {
        failingCalls.clear();
        failingOperations.clear();
        exhaustedProjects.clear();
        identityServiceRefusedProjects.clear();
        latency = Duration.ZERO;
    }

    synchronized Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Object> calls = new LinkedHashMap<>();
        failingCalls.forEach((method, queue) -> {
            List<String> statuses = new ArrayList<>();
            queue.forEach(s -> statuses.add(s.getCode().name()));
            if (!statuses.isEmpty()) {
                calls.put(method, statuses);
            }
        });
        out.put("failingCalls", calls);
        out.put("failingOperations", List.copyOf(failingOperations));
        out.put("exhaustedQuotaProjects", List.copyOf(exhaustedProjects));
        out.put("identityServiceRefusedProjects", List.copyOf(identityServiceRefusedProjects));
        out.put("latencyMillis", latency.toMillis());
        return out;
    }
}
