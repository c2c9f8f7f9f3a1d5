package com.bettercompute.adapters.persistence;

import org.jdbi.v3.core.cache.JdbiCache;
import org.jdbi.v3.core.cache.JdbiCacheBuilder;
import org.jdbi.v3.core.cache.JdbiCacheLoader;
import org.jdbi.v3.core.cache.JdbiCacheStats;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Jdbi's caches of rendered and parsed SQL on a {@link ConcurrentHashMap}. Jdbi's own default keeps an LRU
 * list under one lock that every statement takes, even on a hit; with 32 requests at once, request threads
 * queued on that lock (seen in thread dumps under load). The statements are a small fixed set (an {@code IN}
 * list adds one per length), so a hit needs no order: past {@code maxSize} entries the cache is emptied
 * and refills.
 */
final class SqlCache implements JdbiCacheBuilder {
    private int maxSize = 10_000;

    @Override
    public <K, V> JdbiCache<K, V> build() {
        return new Cache<>(maxSize, null);
    }

    @Override
    public <K, V> JdbiCache<K, V> buildWithLoader(JdbiCacheLoader<K, V> loader) {
        return new Cache<>(maxSize, loader);
    }

    @Override
    public JdbiCacheBuilder maxSize(int size) {
        this.maxSize = size;
        return this;
    }

    private static final class Cache<K, V> implements JdbiCache<K, V> {
        private final ConcurrentHashMap<K, V> entries = new ConcurrentHashMap<>();
        private final int maxSize;
        private final JdbiCacheLoader<K, V> loader;

        Cache(int maxSize, JdbiCacheLoader<K, V> loader) {
            this.maxSize = maxSize;
            this.loader = loader;
        }

        @Override
        public V get(K key) {
            return loader == null ? entries.get(key) : getWithLoader(key, loader);
        }

        @Override
        public V getWithLoader(K key, JdbiCacheLoader<K, V> load) {
            V value = entries.get(key);
            if (value != null) {
                return value;
            }
            if (entries.size() >= maxSize) {
                entries.clear();
            }
            return entries.computeIfAbsent(key, load::create);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T getStats() {
            int size = entries.size();
            return (T) new JdbiCacheStats() {
                @Override
                public int cacheSize() {
                    return size;
                }

                @Override
                public int maxSize() {
                    return maxSize;
                }
            };
        }
    }
}
