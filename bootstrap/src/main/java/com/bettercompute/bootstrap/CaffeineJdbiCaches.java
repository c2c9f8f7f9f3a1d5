package com.bettercompute.bootstrap;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.jdbi.v3.core.cache.JdbiCache;
import org.jdbi.v3.core.cache.JdbiCacheBuilder;
import org.jdbi.v3.core.cache.JdbiCacheLoader;
import org.jdbi.v3.core.cache.JdbiCacheStats;

/**
 * The database's caches on Caffeine ({@code Database.open}): a hit takes no lock, where Jdbi's own LRU list takes one
 * on every statement. A loader's null is not kept. (Jdbi's {@code jdbi3-caffeine-cache} does this, but is not published
 * for the Jdbi version the build uses; this is its few lines.)
 */
final class CaffeineJdbiCaches implements JdbiCacheBuilder {
    private int maxSize = 10_000;

    @Override
    public <K, V> JdbiCache<K, V> build() {
        return new Held<>(Caffeine.newBuilder().maximumSize(maxSize).build(), null, maxSize);
    }

    @Override
    public <K, V> JdbiCache<K, V> buildWithLoader(JdbiCacheLoader<K, V> loader) {
        return new Held<>(Caffeine.newBuilder().maximumSize(maxSize).build(), loader, maxSize);
    }

    @Override
    public JdbiCacheBuilder maxSize(int size) {
        this.maxSize = size;
        return this;
    }

    private record Held<K, V>(Cache<K, V> cache, JdbiCacheLoader<K, V> loader, int maxSize) implements JdbiCache<K, V> {
        @Override
        public V get(K key) {
            return loader == null ? cache.getIfPresent(key) : getWithLoader(key, loader);
        }

        @Override
        public V getWithLoader(K key, JdbiCacheLoader<K, V> load) {
            return cache.get(key, load::create);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T getStats() {
            cache.cleanUp();
            int size = (int) cache.estimatedSize();
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
