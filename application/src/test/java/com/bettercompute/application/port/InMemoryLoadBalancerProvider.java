package com.bettercompute.application.port;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Compute Engine of load balancers in memory: addresses from 203.0.113.0/24 by name, forwarding by name. A fault
 * makes the next call of a method fail before it does anything, or after it did its work (an answer lost on the
 * way back, as when the platform dies during the call).
 */
public final class InMemoryLoadBalancerProvider implements LoadBalancerProvider {
    private final Map<String, String> addresses = new LinkedHashMap<>();
    private final Map<String, Forwarding> forwarding = new LinkedHashMap<>();
    private final Map<String, String> forwardingAddress = new HashMap<>();
    private final Map<String, ProviderException.Kind> failBefore = new HashMap<>();
    private final Map<String, Boolean> loseAnswer = new HashMap<>();
    private final List<String> calls = new ArrayList<>();
    private int nextHost = 1;

    /** The next call of {@code method} ({@code reserveAddress}, {@code ensureForwarding}, {@code release}) fails with {@code kind}. */
    public synchronized void failNext(String method, ProviderException.Kind kind) {
        failBefore.put(method, kind);
    }

    /** The next call of {@code method} does its work and then fails, as if its answer were lost. */
    public synchronized void loseNextAnswer(String method) {
        loseAnswer.put(method, true);
    }

    /** Every call made, as {@code method name}. */
    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    /** Every address reserved now, by name. */
    public synchronized Map<String, String> addresses() {
        return Map.copyOf(addresses);
    }

    /** The forwarding of every name that has one. */
    public synchronized Map<String, Forwarding> forwarding() {
        return Map.copyOf(forwarding);
    }

    private void before(String method, At at) {
        calls.add(method + " " + at.name());
        ProviderException.Kind kind = failBefore.remove(method);
        if (kind != null) {
            throw new ProviderException(kind, method + " failed (injected)");
        }
    }

    private void after(String method) {
        if (loseAnswer.remove(method) != null) {
            throw new ProviderException(ProviderException.Kind.UNAVAILABLE, method + ": the answer was lost (injected)");
        }
    }

    @Override
    public synchronized String reserveAddress(At at, String description) {
        before("reserveAddress", at);
        String ip = addresses.computeIfAbsent(key(at), k -> "203.0.113." + nextHost++);
        after("reserveAddress");
        return ip;
    }

    @Override
    public synchronized void ensureForwarding(At at, String address, Forwarding wanted) {
        before("ensureForwarding", at);
        if (!addresses.containsKey(key(at)) || !addresses.get(key(at)).equals(address)) {
            throw new ProviderException(ProviderException.Kind.INVALID, "no address " + address + " named " + at.name());
        }
        forwarding.put(key(at), wanted);
        forwardingAddress.put(key(at), address);
        after("ensureForwarding");
    }

    @Override
    public synchronized void release(At at, List<String> zones) {
        before("release", at);
        forwarding.remove(key(at));
        forwardingAddress.remove(key(at));
        addresses.remove(key(at));
        after("release");
    }

    @Override
    public synchronized Optional<Observed> observe(At at) {
        String ip = addresses.get(key(at));
        Forwarding f = forwarding.get(key(at));
        return ip == null && f == null ? Optional.empty() : Optional.of(new Observed(ip, f));
    }

    private static String key(At at) {
        return at.project() + "/" + at.region() + "/" + at.name();
    }
}
