package com.bettercompute.bootstrap.catalog;

import com.bettercompute.application.market.MarketCatalog;
import com.bettercompute.application.volume.StorageSettings;
import com.bettercompute.domain.volume.StoragePrice;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.catalog.Locations;
import com.bettercompute.domain.catalog.Network;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.catalog.Project;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Subnet;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.loadbalancer.LoadBalancerSettings;
import com.bettercompute.domain.market.MarketTimings;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the catalog file format of {@code API.md} (YAML) into a {@link Catalog}. Every problem — a
 * malformed document, an unknown key, a missing field, a wrong type, a reference to nothing — is a
 * {@link CatalogException} naming the line. A plain {@code token} is hashed here and never kept.
 */
public final class CatalogFile {
    static final Pattern TENANT_ID = Pattern.compile("^[A-Za-z0-9._:-]{1,128}$");
    static final Pattern POOL_ID = Pattern.compile("^pool_[0-9a-hjkmnp-tv-z]{26,52}$");
    static final Pattern PROJECT_ID = Pattern.compile("^prj_[0-9a-hjkmnp-tv-z]{26,52}$");
    static final Pattern NETWORK_ID = Pattern.compile("^net_[0-9a-hjkmnp-tv-z]{26,52}$");
    static final Pattern CLUSTER_ID = Pattern.compile("^kcl_[0-9a-hjkmnp-tv-z]{26,52}$");
    static final Pattern ZONE = Pattern.compile("^[a-z][a-z0-9-]{1,38}[a-z0-9]$");
    static final Pattern SHA256 = Pattern.compile("^[0-9a-f]{64}$");
    static final Set<String> ATTRIBUTES = Set.of("providerAccountId", "poolId", "projectId", "mode", "location");

    private CatalogFile() {}

    /**
     * The whole file: the catalog, its {@code market} section with the tenants' market settings, the load balancer
     * settings ({@code loadBalancers}, and each tenant's own cap) and its {@code storage} section (which pools provision
     * shared volumes, where storage is billed and at what price).
     */
    public record Parsed(Catalog catalog, MarketCatalog market, LoadBalancerSettings loadBalancers, StorageSettings storage) {
        public Parsed(Catalog catalog, MarketCatalog market) {
            this(catalog, market, LoadBalancerSettings.NONE, StorageSettings.NONE);
        }
    }

    public static Catalog parse(String text) {
        return parseAll(text).catalog();
    }

    public static Parsed parseAll(String text) {
        YamlNode root;
        try {
            root = YamlNode.parse(text);
        } catch (CatalogException e) {
            throw e;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            int line = e.getLocation() == null ? 1 : Math.max(1, e.getLocation().getLineNr());
            throw new CatalogException(line, "not valid YAML: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new CatalogException(1, "the file could not be read");
        }
        return new Reader().read(Obj.of(root, "the catalog"));
    }

    private static final class Reader {
        final List<Provider> providers = new ArrayList<>();
        final List<ProviderAccount> accounts = new ArrayList<>();
        final List<Pool> pools = new ArrayList<>();
        final List<Offer> offers = new ArrayList<>();
        final List<Tenant> tenants = new ArrayList<>();
        final List<Project> projects = new ArrayList<>();
        final List<Network> networks = new ArrayList<>();
        final List<Budget> budgets = new ArrayList<>();
        final List<CatalogPrincipal> principals = new ArrayList<>();
        final Set<String> providerIds = new HashSet<>();
        final Map<String, YamlNode> accountOwners = new LinkedHashMap<>();
        final Set<String> accountIds = new HashSet<>();
        final Set<String> tenantIds = new HashSet<>();
        final List<Runnable> tenantChecks = new ArrayList<>();
        final Map<String, List<String>> accountZones = new LinkedHashMap<>();
        final List<MarketCatalog.TenantSpec> marketTenants = new ArrayList<>();
        final List<MarketCatalog.PoolSpec> marketPools = new ArrayList<>();
        MarketTimings timings = MarketTimings.standard();
        final Map<String, Integer> tenantLoadBalancerCaps = new LinkedHashMap<>();

        Parsed read(Obj root) {
            for (Obj o : root.objects("providers")) {
                String id = o.id("id", null, providerIds);
                providers.add(new Provider(id, o.bool("managedKubernetes", true)));
                o.done();
            }
            for (Obj o : root.objects("accounts")) {
                String id = o.id("id", null, accountIds);
                String provider = o.str("provider", true);
                if (!providerIds.contains(provider)) {
                    throw o.at("provider", "no provider '" + provider + "' is listed under providers");
                }
                String owner = o.str("owner", true);
                String cloudProject = o.str("cloudProject", true);
                List<String> zones = o.strings("zones", ZONE);
                for (String z : zones) {
                    if (!Locations.isZone(z)) {
                        throw o.at("zones", "'" + z + "' is not a zone name such as us-central1-a");
                    }
                }
                accounts.add(new ProviderAccount(id, provider, owner, cloudProject, zones, o.optionalStr("credentialsFile")));
                accountOwners.put(id, o.node("owner"));
                accountZones.put(id, zones);
                o.done();
            }
            for (Obj t : root.objects("tenants")) {
                String id = t.id("id", TENANT_ID, tenantIds);
                Integer max = t.integer("maxClusters", 0, 100_000);
                tenants.add(new Tenant(id, max == null ? Tenant.DEFAULT_MAX_CLUSTERS : max));
                Money credits = t.node("credits") == null || t.node("credits").value() == null ? null : usd(t, "credits", false);
                Obj market = t.object("market");
                MarketCatalog.Settings settings = null;
                if (market != null) {
                    Integer maxGpus = market.integer("maxClusterGpus", 0, 1_000_000);
                    if (maxGpus == null) {
                        throw market.here("'maxClusterGpus' is required");
                    }
                    settings = new MarketCatalog.Settings(maxGpus, market.bool("packing", false));
                    market.done();
                }
                if (credits != null || settings != null) {
                    marketTenants.add(new MarketCatalog.TenantSpec(id, credits, settings));
                }
                for (String p : t.strings("projects", PROJECT_ID)) {
                    projects.add(new Project(p, id));
                }
                for (Obj n : t.objects("networks")) {
                    String nid = n.str("id", true);
                    n.check("id", NETWORK_ID.matcher(nid).matches(), "must match " + NETWORK_ID.pattern());
                    String account = n.str("account", true);
                    n.check("account", accountIds.contains(account), "no account '" + account + "' is listed under accounts");
                    String state = n.oneOf("state", List.of("provisioned", "pending"));
                    List<Subnet> subnets = new ArrayList<>();
                    for (Obj s : n.objects("subnets")) {
                        subnets.add(new Subnet(s.str("name", true), s.str("region", true), s.oneOf("state", List.of("ready", "pending"))));
                        s.done();
                    }
                    networks.add(new Network(nid, id, account, state, subnets));
                    n.done();
                }
                Obj lb = t.object("loadBalancers");
                if (lb != null) {
                    Integer cap = lb.integer("clusterCap", 0, 10_000);
                    if (cap == null) {
                        throw lb.here("'clusterCap' is required");
                    }
                    tenantLoadBalancerCaps.put(id, cap);
                    lb.done();
                }
                for (Obj b : t.objects("budgets")) {
                    budgets.add(new Budget(b.str("id", true), id, b.money("limitUsd"), b.money("spentUsd")));
                    b.done();
                }
                t.done();
            }
            accountOwners.forEach((account, node) -> {
                String owner = (String) node.value();
                if (!owner.equals(ProviderAccount.PLATFORM) && !tenantIds.contains(owner)) {
                    throw new CatalogException(node.line(), "owner '" + owner + "' is neither 'platform' nor a tenant listed under tenants");
                }
            });
            Set<String> poolIds = new HashSet<>();
            for (Obj o : root.objects("pools")) {
                String id = o.id("id", POOL_ID, poolIds);
                String account = o.str("account", true);
                o.check("account", accountIds.contains(account), "no account '" + account + "' is listed under accounts");
                String kind = o.str("kind", true);
                BillingMode billing = BillingMode.fromWire(o.oneOf("billingMode", List.of("metered", "platform-fee", "none")));
                pools.add(new Pool(id, account, PoolKind.fromWire(kind), kind, billing));
                Set<String> offered = new HashSet<>();
                for (Obj f : o.objects("offers")) {
                    String tenant = f.str("tenant", true);
                    f.check("tenant", tenantIds.contains(tenant), "no tenant '" + tenant + "' is listed under tenants");
                    f.check("tenant", offered.add(tenant), "the pool is offered to '" + tenant + "' twice");
                    String state = f.oneOf("state", List.of("active", "suspended"));
                    offers.add(new Offer(id, tenant, state.equals("active"), f.strings("excludedRegions", ZONE)));
                    f.done();
                }
                o.done();
            }
            Set<String> principalIds = new HashSet<>();
            for (Obj o : root.objects("principals")) {
                String id = o.id("id", null, principalIds);
                String hash = o.optionalStr("tokenSha256");
                String plain = o.optionalStr("token");
                if ((hash == null) == (plain == null)) {
                    throw o.here("a principal needs exactly one of tokenSha256 and token");
                }
                if (hash != null) {
                    o.check("tokenSha256", SHA256.matcher(hash).matches(), "must be 64 lower-case hex digits (a SHA-256)");
                }
                boolean operator = o.bool("operator", false);
                List<RoleBinding> bindings = new ArrayList<>();
                for (Obj b : o.objects("bindings")) {
                    bindings.add(binding(id, b));
                }
                principals.add(new CatalogPrincipal(id, hash != null ? hash : Ids.sha256Hex(plain), operator, bindings));
                o.done();
            }
            Obj market = root.object("market");
            if (market != null) {
                market(market);
            }
            LoadBalancerSettings loadBalancers = loadBalancers(root.object("loadBalancers"));
            Obj storage = root.object("storage");
            StorageSettings storageSettings = storage == null ? StorageSettings.NONE : storage(storage);
            root.done();
            return new Parsed(new Catalog(providers, accounts, pools, offers, tenants, projects, networks, budgets, principals),
                    new MarketCatalog(timings, marketPools, marketTenants), loadBalancers, storageSettings);
        }

        /**
         * The {@code loadBalancers} section: the default per-cluster cap and the shared address pool of each region where
         * provisioning is enabled (a region without a pool is not enabled). Absent: enabled nowhere.
         */
        LoadBalancerSettings loadBalancers(Obj lb) {
            if (lb == null) {
                return new LoadBalancerSettings(LoadBalancerSettings.DEFAULT_CLUSTER_CAP, tenantLoadBalancerCaps, Map.of());
            }
            Integer cap = lb.integer("clusterCap", 0, 10_000);
            Map<String, Integer> pools = new LinkedHashMap<>();
            for (Obj p : lb.objects("addressPools")) {
                String region = p.str("region", true);
                p.check("region", ZONE.matcher(region).matches() && !Locations.isZone(region), "'" + region
                        + "' is not a region name such as us-central1");
                p.check("region", !pools.containsKey(region), "region '" + region + "' has two address pools");
                Integer limit = p.integer("limit", 0, 1_000_000);
                if (limit == null) {
                    throw p.here("'limit' is required: how many addresses the platform may hold in the region");
                }
                pools.put(region, limit);
                p.done();
            }
            lb.done();
            return new LoadBalancerSettings(cap == null ? LoadBalancerSettings.DEFAULT_CLUSTER_CAP : cap, tenantLoadBalancerCaps, pools);
        }

        /**
         * The {@code storage} section: {@code sharedVolumePools} (pools whose new clusters come with a shared volume),
         * {@code sampleEvery} (how often the bytes each volume holds are read; 1m by default) and {@code billing}, the
         * sites (regions) where storage is billed, each with its {@code pricePerGiBMonth}.
         */
        StorageSettings storage(Obj storage) {
            Set<String> known = new HashSet<>();
            pools.forEach(p -> known.add(p.id()));
            List<String> volumePools = storage.strings("sharedVolumePools", POOL_ID);
            for (String pool : volumePools) {
                storage.check("sharedVolumePools", known.contains(pool), "no pool '" + pool + "' is listed under pools");
            }
            Duration every = duration(storage, "sampleEvery", StorageSettings.DEFAULT_SAMPLE_EVERY);
            storage.check("sampleEvery", !every.isZero() && every.compareTo(Duration.ofHours(1)) <= 0, "must be between 1s and 1h");
            Map<String, StoragePrice> prices = new LinkedHashMap<>();
            for (Obj b : storage.objects("billing")) {
                String site = b.str("site", true);
                b.check("site", !prices.containsKey(site), "site '" + site + "' is listed twice");
                b.check("site", accountZones.values().stream().flatMap(List::stream).anyMatch(z -> z.startsWith(site + "-")),
                        "'" + site + "' is not the region of any account's zone");
                prices.put(site, new StoragePrice(usd(b, "pricePerGiBMonth", true)));
                b.done();
            }
            storage.done();
            return new StorageSettings(Set.copyOf(volumePools), prices, every);
        }

        /** The {@code market} section: its durations (MARKET.md's by default) and its pools. */
        void market(Obj market) {
            Obj d = market.object("durations");
            if (d != null) {
                MarketTimings std = MarketTimings.standard();
                Duration notice = duration(d, "notice", std.notice());
                Duration hold = duration(d, "minimumHold", std.minimumHold());
                Duration window = duration(d, "protectionWindow", std.protection());
                Duration idle = duration(d, "idleGrace", std.idleGrace());
                Duration cover = duration(d, "balanceCover", std.balanceHorizon());
                Duration period = duration(d, "billingPeriod", std.billingPeriod());
                d.check("protectionWindow", window.compareTo(hold) >= 0, "must be at least the minimumHold ("
                        + hold + ")");
                // periods end on multiples of themselves: one that divides an hour never straddles one (usage is per hour)
                d.check("billingPeriod", period.getSeconds() > 0 && period.getNano() == 0
                        && Duration.ofHours(1).getSeconds() % period.getSeconds() == 0, "must be whole seconds that divide an hour, such as 1h, 10m or 30s");
                timings = new MarketTimings(hold, window, notice, idle, cover, period, std.evictionGrace());
                d.done();
            }
            Set<String> ids = new HashSet<>();
            for (Obj p : market.objects("pools")) {
                String text = p.id("id", MARKET_POOL, ids);
                String account = p.str("account", true);
                p.check("account", accountIds.contains(account), "no account '" + account + "' is listed under accounts");
                String zone = p.str("zone", true);
                p.check("zone", accountZones.get(account).contains(zone), "'" + zone + "' is not one of the zones of account '"
                        + account + "'");
                PoolId id = PoolId.parse(text);
                p.check("id", zone.startsWith(id.site() + "-"), "the site '" + id.site() + "' must be the region of zone '"
                        + zone + "'");
                String machineType = p.str("machineType", true);
                Obj accelerator = p.object("accelerator");
                if (accelerator == null) {
                    throw p.here("'accelerator' is required: {type, count}");
                }
                String type = accelerator.str("type", true);
                Integer count = accelerator.integer("count", 1, 64);
                if (count == null) {
                    throw accelerator.here("'count' is required (the GPUs of one node)");
                }
                accelerator.done();
                Integer nodes = p.integer("nodes", 0, 100_000);
                if (nodes == null) {
                    throw p.here("'nodes' is required (the pool's supply)");
                }
                Money reserve = usd(p, "reserve", true);
                p.check("reserve", reserve.compareTo(Money.MAX_PRICE) <= 0, "must be at most " + Money.MAX_PRICE + " USD per GPU-hour");
                marketPools.add(new MarketCatalog.PoolSpec(id, account, zone, machineType, type, count, nodes, reserve));
                p.done();
            }
            market.done();
        }

        RoleBinding binding(String principal, Obj b) {
            String tenant = b.optionalStr("tenant");
            String cluster = b.optionalStr("cluster");
            if ((tenant == null) == (cluster == null)) {
                throw b.here("a binding names exactly one of tenant and cluster");
            }
            if (tenant != null) {
                b.check("tenant", tenantIds.contains(tenant), "no tenant '" + tenant + "' is listed under tenants");
            } else {
                b.check("cluster", CLUSTER_ID.matcher(cluster).matches(), "must be a cluster id (" + CLUSTER_ID.pattern() + ")");
            }
            String roleName = b.str("role", true);
            Role role = Role.fromWire(roleName).orElseThrow(() -> b.at("role",
                    "must be one of kubernetes-viewer, kubernetes-editor, kubernetes-admin"));
            Map<String, List<String>> where = new LinkedHashMap<>();
            Obj w = b.object("where");
            if (w != null) {
                for (String attribute : w.keys()) {
                    w.check(attribute, ATTRIBUTES.contains(attribute), "conditions may name " + String.join(", ", new java.util.TreeSet<>(ATTRIBUTES)));
                    where.put(attribute, w.strings(attribute, null));
                }
                w.done();
            }
            b.done();
            return new RoleBinding(principal, tenant, cluster, role, where);
        }
    }

    static final Pattern MARKET_POOL = Pattern.compile("^[a-z][a-z0-9-]{0,62}/[a-z0-9][a-z0-9.-]{0,62}$");
    static final Pattern DURATION = Pattern.compile("^([0-9]{1,9}(h|m|s|ms))+$");
    static final Pattern DURATION_PART = Pattern.compile("([0-9]{1,9})(h|ms|m|s)");

    /** An amount of USD: a decimal string such as "1.20" (or a plain YAML number), at most six decimals. */
    static Money usd(Obj o, String key, boolean required) {
        YamlNode n = o.node(key);
        if (n == null || n.value() == null) {
            if (required) {
                throw o.here("'" + key + "' is required");
            }
            return null;
        }
        String text = n.value() instanceof BigDecimal d ? d.toPlainString() : n.value() instanceof String s ? s : null;
        if (text == null) {
            throw o.at(key, "must be an amount of USD such as \"1.20\"");
        }
        try {
            return Money.parse(text);
        } catch (DomainException e) {
            throw o.at(key, "must be an amount of USD such as \"1.20\" (not negative, at most six decimals)");
        }
    }

    /** A duration such as {@code 60s}, {@code 5m}, {@code 1h30m}; more than zero. */
    static Duration duration(Obj o, String key, Duration fallback) {
        String text = o.optionalStr(key);
        if (text == null) {
            return fallback;
        }
        o.check(key, DURATION.matcher(text).matches(), "must be a duration such as 60s, 5m, 2h or 1h30m");
        Duration total = Duration.ZERO;
        java.util.regex.Matcher m = DURATION_PART.matcher(text);
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(switch (m.group(2)) {
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                case "s" -> Duration.ofSeconds(n);
                default -> Duration.ofMillis(n);
            });
        }
        o.check(key, !total.isZero(), "must be more than zero");
        return total;
    }

    /** One YAML mapping being read: each read names a key as known; {@link #done()} refuses the rest. */
    private static final class Obj {
        final YamlNode node;
        final Map<String, YamlNode> map;
        final Set<String> known = new LinkedHashSet<>();

        @SuppressWarnings("unchecked")
        private Obj(YamlNode node) {
            this.node = node;
            this.map = (Map<String, YamlNode>) node.value();
        }

        static Obj of(YamlNode node, String what) {
            if (!(node.value() instanceof Map)) {
                throw new CatalogException(node.line(), what + " must be a mapping of keys to values");
            }
            return new Obj(node);
        }

        Set<String> keys() {
            return map.keySet();
        }

        YamlNode node(String key) {
            known.add(key);
            return map.get(key);
        }

        CatalogException here(String problem) {
            return new CatalogException(node.line(), problem);
        }

        CatalogException at(String key, String problem) {
            YamlNode n = map.get(key);
            return new CatalogException(n == null ? node.line() : n.line(), key + ": " + problem);
        }

        void check(String key, boolean ok, String problem) {
            if (!ok) {
                throw at(key, problem);
            }
        }

        String optionalStr(String key) {
            YamlNode n = node(key);
            if (n == null || n.value() == null) {
                return null;
            }
            if (!(n.value() instanceof String s) || s.isEmpty()) {
                throw at(key, "must be a non-empty string");
            }
            return s;
        }

        String str(String key, boolean required) {
            String s = optionalStr(key);
            if (s == null && required) {
                throw here("'" + key + "' is required");
            }
            return s;
        }

        String id(String key, Pattern pattern, Set<String> seen) {
            String id = str(key, true);
            if (pattern != null) {
                check(key, pattern.matcher(id).matches(), "must match " + pattern.pattern());
            }
            check(key, seen.add(id), "'" + id + "' is listed twice");
            return id;
        }

        String oneOf(String key, List<String> values) {
            String s = str(key, true);
            check(key, values.contains(s), "must be one of " + String.join(", ", values));
            return s;
        }

        boolean bool(String key, boolean fallback) {
            YamlNode n = node(key);
            if (n == null || n.value() == null) {
                return fallback;
            }
            if (!(n.value() instanceof Boolean b)) {
                throw at(key, "must be true or false");
            }
            return b;
        }

        Integer integer(String key, int min, int max) {
            YamlNode n = node(key);
            if (n == null || n.value() == null) {
                return null;
            }
            if (!(n.value() instanceof BigDecimal d) || d.stripTrailingZeros().scale() > 0
                    || d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
                throw at(key, "must be a whole number from " + min + " to " + max);
            }
            return d.intValueExact();
        }

        BigDecimal money(String key) {
            YamlNode n = node(key);
            if (n == null || !(n.value() instanceof BigDecimal d) || d.signum() < 0) {
                throw n == null ? here("'" + key + "' is required") : at(key, "must be an amount of 0 or more");
            }
            return d;
        }

        List<String> strings(String key, Pattern pattern) {
            YamlNode n = node(key);
            if (n == null || n.value() == null) {
                return List.of();
            }
            if (!(n.value() instanceof List<?> list)) {
                throw at(key, "must be a list");
            }
            List<String> out = new ArrayList<>();
            for (Object o : list) {
                YamlNode item = (YamlNode) o;
                if (!(item.value() instanceof String s) || (pattern != null && !pattern.matcher(s).matches())) {
                    throw new CatalogException(item.line(), key + ": each item must be a string"
                            + (pattern == null ? "" : " matching " + pattern.pattern()));
                }
                out.add(s);
            }
            return out;
        }

        Obj object(String key) {
            YamlNode n = node(key);
            return n == null || n.value() == null ? null : Obj.of(n, key);
        }

        List<Obj> objects(String key) {
            YamlNode n = node(key);
            if (n == null || n.value() == null) {
                return List.of();
            }
            if (!(n.value() instanceof List<?> list)) {
                throw at(key, "must be a list");
            }
            List<Obj> out = new ArrayList<>();
            for (Object o : list) {
                out.add(Obj.of((YamlNode) o, "each item of " + key));
            }
            return out;
        }

        void done() {
            for (Map.Entry<String, YamlNode> e : map.entrySet()) {
                if (!known.contains(e.getKey())) {
                    throw new CatalogException(e.getValue() == null ? node.line() : e.getValue().line(),
                            "unknown key '" + e.getKey() + "'");
                }
            }
        }
    }
}
