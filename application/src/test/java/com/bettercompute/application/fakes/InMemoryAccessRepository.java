package com.bettercompute.application.fakes;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.CatalogPrincipal;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@link AccessRepository} on an {@link InMemoryStore}. Holds token hashes only, like the database. */
public final class InMemoryAccessRepository implements AccessRepository {
    private final InMemoryStore store;

    public InMemoryAccessRepository(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public void save(List<CatalogPrincipal> principals) {
        store.lockedRun(s -> {
            for (CatalogPrincipal p : principals) {
                if (p.tokenSha256() != null) {
                    s.tokenHashes.forEach((otherId, hash) -> {
                        if (hash.equals(p.tokenSha256()) && !otherId.equals(p.id())) {
                            // the id only: the hash identifies a secret
                            throw new DomainException(ErrorCode.CONFLICT,
                                    "Another principal already has this API token.", Map.of("principal", p.id()));
                        }
                    });
                }
            }
            for (CatalogPrincipal p : principals) {
                s.principals.put(p.id(), new Principal(p.id(), p.operator()));
                if (p.tokenSha256() == null) {
                    s.tokenHashes.remove(p.id());
                } else {
                    s.tokenHashes.put(p.id(), p.tokenSha256());
                }
                s.bindings.put(p.id(), p.bindings());
            }
        });
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
    public void addOwner(String clusterId, String principalId) {
        store.lockedRun(s -> s.owners.put(clusterId, principalId));
    }

    @Override
    public void removeOwner(String clusterId) {
        store.lockedRun(s -> s.owners.remove(clusterId));
    }
}
