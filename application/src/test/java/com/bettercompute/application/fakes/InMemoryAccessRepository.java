package com.bettercompute.application.fakes;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.cluster.Cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** {@link AccessRepository} on an {@link InMemoryStore}. Holds token hashes only, like the database. */
public final class InMemoryAccessRepository implements AccessRepository {
    private final InMemoryStore store;

    public InMemoryAccessRepository(InMemoryStore store) {
        this.store = store;
    }

    /** The listed principals replace all; two of them with one token is CONFLICT, and nothing is saved. */
    @Override
    public void save(List<CatalogPrincipal> principals) {
        store.lockedRun(s -> {
            Map<String, String> hashes = new LinkedHashMap<>();
            for (CatalogPrincipal p : principals) {
                if (p.tokenSha256() != null) {
                    if (hashes.containsValue(p.tokenSha256())) {
                        throw new DomainException(ErrorCode.CONFLICT, "Two principals have the same API token.");
                    }
                    hashes.put(p.id(), p.tokenSha256());
                }
            }
            s.tokenHashes.clear();
            s.tokenHashes.putAll(hashes);
            Set<String> listed = principals.stream().map(CatalogPrincipal::id).collect(Collectors.toSet());
            s.principals.keySet().retainAll(listed);
            s.bindings.keySet().retainAll(listed);
            s.owners.values().removeIf(owner -> !listed.contains(owner));
            for (CatalogPrincipal p : principals) {
                s.principals.put(p.id(), new Principal(p.id(), p.operator()));
                s.bindings.put(p.id(), p.bindings());
            }
        });
    }

    @Override
    public void removeOwnersOutside(Set<String> tenantIds) {
        store.lockedRun(s -> s.owners.keySet().removeIf(clusterId -> {
            Cluster c = s.clusters.get(clusterId);
            return c != null && !tenantIds.contains(c.tenantId());
        }));
    }

    @Override
    public Optional<Principal> principalByTokenHash(String tokenSha256) {
        return store.locked(s -> s.tokenHashes.entrySet().stream()
                .filter(e -> e.getValue().equals(tokenSha256))
                .map(e -> s.principals.get(e.getKey()))
                .findFirst());
    }

    @Override
    public List<RoleBinding> bindings(String principalId) {
        return store.locked(s -> s.bindings.getOrDefault(principalId, List.of()));
    }

    @Override
    public Optional<String> owner(String clusterId) {
        return store.locked(s -> Optional.ofNullable(s.owners.get(clusterId)));
    }

    @Override
    public Set<String> clustersOwnedBy(String principalId) {
        return store.locked(s -> s.owners.entrySet().stream().filter(e -> e.getValue().equals(principalId))
                .map(Map.Entry::getKey).collect(Collectors.toUnmodifiableSet()));
    }

    @Override
    public void addOwner(String clusterId, String principalId) {
        store.lockedRun(s -> s.owners.put(clusterId, principalId));
    }

    @Override
    public void removeOwner(String clusterId) {
        store.lockedRun(s -> s.owners.remove(clusterId));
    }
}
