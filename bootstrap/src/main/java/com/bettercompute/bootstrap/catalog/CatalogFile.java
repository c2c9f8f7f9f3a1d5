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

import com.bettercompute.bootstrap.catalog.CatalogDocument.AccountEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.AddressPool;
import com.bettercompute.bootstrap.catalog.CatalogDocument.BindingEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.BudgetEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.LoadBalancersSection;
import com.bettercompute.bootstrap.catalog.CatalogDocument.MarketDurations;
import com.bettercompute.bootstrap.catalog.CatalogDocument.MarketPoolEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.MarketSection;
import com.bettercompute.bootstrap.catalog.CatalogDocument.NetworkEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.OfferEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.PoolEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.PrincipalEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.ProviderEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.StorageBilling;
import com.bettercompute.bootstrap.catalog.CatalogDocument.StorageSection;
import com.bettercompute.bootstrap.catalog.CatalogDocument.SubnetEntry;
import com.bettercompute.bootstrap.catalog.CatalogDocument.TenantEntry;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the catalog file format of {@code API.md} (YAML) into a {@link Catalog}: Jackson binds the file into the
 * records of {@link CatalogDocument}, then each value is checked. Every problem — a malformed document, an unknown
 * key, a missing field, a wrong type, a reference to nothing — is a {@link CatalogException} naming the line
 * ({@link YamlLines}). A plain {@code token} is hashed here and never kept.
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
    static final Pattern MARKET_POOL = Pattern.compile("^[a-z][a-z0-9-]{0,62}/[a-z0-9][a-z0-9.-]{0,62}$");
    static final Pattern DURATION = Pattern.compile("^([0-9]{1,9}(h|m|s|ms))+$");
    static final Pattern DURATION_PART = Pattern.compile("([0-9]{1,9})(h|ms|m|s)");

    /** The whole numbers of the file by key, each with its range: the one place a wrong type and a wrong value are both told. */
    private static final Map<String, Range> WHOLE = Map.of(
            "maxClusters", new Range(0, 100_000), "maxClusterGpus", new Range(0, 1_000_000),
            "clusterCap", new Range(0, 10_000), "limit", new Range(0, 1_000_000),
            "count", new Range(1, 64), "nodes", new Range(0, 100_000));
    /** Amounts that are plain numbers of 0 or more rather than prices in USD. */
    private static final Set<String> PLAIN_AMOUNTS = Set.of("limitUsd", "spentUsd");
    private static final String USD = "must be an amount of USD such as \"1.20\"";

    /**
     * Strict where the file's meaning would change silently: no number or boolean read as text, no text or fraction
     * read as a whole number, no text read as a boolean. Amounts may be numbers or strings ({@code "1.20"}).
     */
    private static final ObjectMapper YAML = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .withCoercionConfig(LogicalType.Textual, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .withCoercionConfig(LogicalType.Integer, c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail))
            .withCoercionConfig(LogicalType.Boolean, c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail))
            .build();

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
        YamlLines lines;
        try {
            lines = YamlLines.of(YAML.getFactory(), text);
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 1 : Math.max(1, e.getLocation().getLineNr());
            throw new CatalogException(line, "not valid YAML: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new CatalogException(1, "the file could not be read");
        }
        if (lines.empty()) {
            return new Reader(lines).read(CatalogDocument.EMPTY);
        }
        if (!lines.mapping()) {
            throw new CatalogException(1, "the catalog must be a mapping of keys to values");
        }
        CatalogDocument document;
        try {
            document = YAML.readValue(text, CatalogDocument.class);
        } catch (UnrecognizedPropertyException e) {
            throw new CatalogException(lines.line(pointer(e)), "unknown key '" + e.getPropertyName() + "'");
        } catch (MismatchedInputException e) {
            throw wrongType(lines, e);
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 1 : Math.max(1, e.getLocation().getLineNr());
            throw new CatalogException(line, "not valid YAML: " + e.getOriginalMessage());
        }
        return new Reader(lines).read(document);
    }

    private static String pointer(JsonMappingException e) {
        String pointer = "";
        for (JsonMappingException.Reference ref : e.getPath()) {
            pointer = ref.getFieldName() != null ? YamlLines.child(pointer, ref.getFieldName()) : YamlLines.child(pointer, ref.getIndex());
        }
        return pointer;
    }

    /** A value Jackson could not bind, told as what the key takes. */
    private static CatalogException wrongType(YamlLines lines, MismatchedInputException e) {
        List<JsonMappingException.Reference> path = e.getPath();
        int line = lines.line(pointer(e));
        Class<?> target = e.getTargetType() == null ? Object.class : e.getTargetType();
        if (path.isEmpty()) {
            return new CatalogException(line, "the catalog must be a mapping of keys to values");
        }
        JsonMappingException.Reference last = path.get(path.size() - 1);
        if (last.getFieldName() == null) {
            String key = path.size() > 1 ? path.get(path.size() - 2).getFieldName() : "the list";
            return new CatalogException(line, target == String.class ? key + ": each item must be a string"
                    : "each item of " + key + " must be a mapping of keys to values");
        }
        String key = last.getFieldName();
        if (target.isRecord() || Map.class.isAssignableFrom(target)) {
            return new CatalogException(line, key + " must be a mapping of keys to values");
        }
        String problem;
        if (Collection.class.isAssignableFrom(target)) {
            problem = "must be a list";
        } else if (target == Boolean.class) {
            problem = "must be true or false";
        } else if (target == BigInteger.class) {
            problem = WHOLE.get(key).problem();
        } else if (target == BigDecimal.class) {
            problem = PLAIN_AMOUNTS.contains(key) ? "must be an amount of 0 or more" : USD;
        } else {
            problem = "must be a non-empty string";
        }
        return new CatalogException(line, key + ": " + problem);
    }

    private record Range(int min, int max) {
        String problem() {
            return "must be a whole number from " + min + " to " + max;
        }
    }

    private static final class Reader {
        final YamlLines lines;
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
        /** Each account's owner and where it is written, checked once the tenants are known. */
        final Map<At, String> accountOwners = new LinkedHashMap<>();
        final Set<String> accountIds = new HashSet<>();
        final Set<String> tenantIds = new HashSet<>();
        final Map<String, List<String>> accountZones = new LinkedHashMap<>();
        final List<MarketCatalog.TenantSpec> marketTenants = new ArrayList<>();
        final List<MarketCatalog.PoolSpec> marketPools = new ArrayList<>();
        MarketTimings timings = MarketTimings.standard();
        final Map<String, Integer> tenantLoadBalancerCaps = new LinkedHashMap<>();

        Reader(YamlLines lines) {
            this.lines = lines;
        }

        Parsed read(CatalogDocument doc) {
            At root = new At(lines, "");
            for (Item<ProviderEntry> i : root.items("providers", doc.providers())) {
                ProviderEntry o = i.value();
                String id = i.at().id("id", o.id(), null, providerIds);
                providers.add(new Provider(id, o.managedKubernetes() == null || o.managedKubernetes()));
            }
            for (Item<AccountEntry> i : root.items("accounts", doc.accounts())) {
                AccountEntry o = i.value();
                At at = i.at();
                String id = at.id("id", o.id(), null, accountIds);
                String provider = at.str("provider", o.provider());
                if (!providerIds.contains(provider)) {
                    throw at.at("provider", "no provider '" + provider + "' is listed under providers");
                }
                String owner = at.str("owner", o.owner());
                String cloudProject = at.str("cloudProject", o.cloudProject());
                List<String> zones = at.strings("zones", o.zones(), ZONE);
                for (String z : zones) {
                    if (!Locations.isZone(z)) {
                        throw at.at("zones", "'" + z + "' is not a zone name such as us-central1-a");
                    }
                }
                accounts.add(new ProviderAccount(id, provider, owner, cloudProject, zones, at.optionalStr("credentialsFile", o.credentialsFile())));
                accountOwners.put(at.key("owner"), owner);
                accountZones.put(id, zones);
            }
            for (Item<TenantEntry> i : root.items("tenants", doc.tenants())) {
                tenant(i.value(), i.at());
            }
            accountOwners.forEach((at, owner) -> {
                if (!owner.equals(ProviderAccount.PLATFORM) && !tenantIds.contains(owner)) {
                    throw at.here("owner '" + owner + "' is neither 'platform' nor a tenant listed under tenants");
                }
            });
            Set<String> poolIds = new HashSet<>();
            for (Item<PoolEntry> i : root.items("pools", doc.pools())) {
                PoolEntry o = i.value();
                At at = i.at();
                String id = at.id("id", o.id(), POOL_ID, poolIds);
                String account = at.str("account", o.account());
                at.check("account", accountIds.contains(account), "no account '" + account + "' is listed under accounts");
                String kind = at.str("kind", o.kind());
                BillingMode billing = BillingMode.fromWire(at.oneOf("billingMode", o.billingMode(), List.of("metered", "platform-fee", "none")));
                pools.add(new Pool(id, account, PoolKind.fromWire(kind), kind, billing));
                Set<String> offered = new HashSet<>();
                for (Item<OfferEntry> j : at.items("offers", o.offers())) {
                    OfferEntry f = j.value();
                    At fat = j.at();
                    String tenant = fat.str("tenant", f.tenant());
                    fat.check("tenant", tenantIds.contains(tenant), "no tenant '" + tenant + "' is listed under tenants");
                    fat.check("tenant", offered.add(tenant), "the pool is offered to '" + tenant + "' twice");
                    String state = fat.oneOf("state", f.state(), List.of("active", "suspended"));
                    offers.add(new Offer(id, tenant, state.equals("active"), fat.strings("excludedRegions", f.excludedRegions(), ZONE)));
                }
            }
            Set<String> principalIds = new HashSet<>();
            for (Item<PrincipalEntry> i : root.items("principals", doc.principals())) {
                PrincipalEntry o = i.value();
                At at = i.at();
                String id = at.id("id", o.id(), null, principalIds);
                String hash = at.optionalStr("tokenSha256", o.tokenSha256());
                String plain = at.optionalStr("token", o.token());
                if ((hash == null) == (plain == null)) {
                    throw at.here("a principal needs exactly one of tokenSha256 and token");
                }
                if (hash != null) {
                    at.check("tokenSha256", SHA256.matcher(hash).matches(), "must be 64 lower-case hex digits (a SHA-256)");
                }
                List<RoleBinding> bindings = new ArrayList<>();
                for (Item<BindingEntry> b : at.items("bindings", o.bindings())) {
                    bindings.add(binding(id, b.value(), b.at()));
                }
                principals.add(new CatalogPrincipal(id, hash != null ? hash : Ids.sha256Hex(plain), Boolean.TRUE.equals(o.operator()), bindings));
            }
            if (doc.market() != null) {
                market(doc.market(), root.key("market"));
            }
            LoadBalancerSettings loadBalancers = loadBalancers(doc.loadBalancers(), root.key("loadBalancers"));
            StorageSettings storage = doc.storage() == null ? StorageSettings.NONE : storage(doc.storage(), root.key("storage"));
            return new Parsed(new Catalog(providers, accounts, pools, offers, tenants, projects, networks, budgets, principals),
                    new MarketCatalog(timings, marketPools, marketTenants), loadBalancers, storage);
        }

        void tenant(TenantEntry t, At at) {
            String id = at.id("id", t.id(), TENANT_ID, tenantIds);
            Integer max = at.whole("maxClusters", t.maxClusters());
            tenants.add(new Tenant(id, max == null ? Tenant.DEFAULT_MAX_CLUSTERS : max));
            Money credits = at.usd("credits", t.credits(), false);
            MarketCatalog.Settings settings = null;
            if (t.market() != null) {
                At market = at.key("market");
                Integer maxGpus = market.whole("maxClusterGpus", t.market().maxClusterGpus());
                if (maxGpus == null) {
                    throw market.here("'maxClusterGpus' is required");
                }
                settings = new MarketCatalog.Settings(maxGpus, Boolean.TRUE.equals(t.market().packing()));
            }
            if (credits != null || settings != null) {
                marketTenants.add(new MarketCatalog.TenantSpec(id, credits, settings));
            }
            for (String p : at.strings("projects", t.projects(), PROJECT_ID)) {
                projects.add(new Project(p, id));
            }
            for (Item<NetworkEntry> i : at.items("networks", t.networks())) {
                NetworkEntry n = i.value();
                At nat = i.at();
                String nid = nat.str("id", n.id());
                nat.check("id", NETWORK_ID.matcher(nid).matches(), "must match " + NETWORK_ID.pattern());
                String account = nat.str("account", n.account());
                nat.check("account", accountIds.contains(account), "no account '" + account + "' is listed under accounts");
                String state = nat.oneOf("state", n.state(), List.of("provisioned", "pending"));
                List<Subnet> subnets = new ArrayList<>();
                for (Item<SubnetEntry> j : nat.items("subnets", n.subnets())) {
                    SubnetEntry s = j.value();
                    At sat = j.at();
                    subnets.add(new Subnet(sat.str("name", s.name()), sat.str("region", s.region()),
                            sat.oneOf("state", s.state(), List.of("ready", "pending"))));
                }
                networks.add(new Network(nid, id, account, state, subnets));
            }
            if (t.loadBalancers() != null) {
                At lb = at.key("loadBalancers");
                Integer cap = lb.whole("clusterCap", t.loadBalancers().clusterCap());
                if (cap == null) {
                    throw lb.here("'clusterCap' is required");
                }
                tenantLoadBalancerCaps.put(id, cap);
            }
            for (Item<BudgetEntry> i : at.items("budgets", t.budgets())) {
                BudgetEntry b = i.value();
                At bat = i.at();
                budgets.add(new Budget(bat.str("id", b.id()), id, bat.amount("limitUsd", b.limitUsd()), bat.amount("spentUsd", b.spentUsd())));
            }
        }

        /**
         * The {@code loadBalancers} section: the default per-cluster cap and the shared address pool of each region where
         * provisioning is enabled (a region without a pool is not enabled). Absent: enabled nowhere.
         */
        LoadBalancerSettings loadBalancers(LoadBalancersSection lb, At at) {
            if (lb == null) {
                return new LoadBalancerSettings(LoadBalancerSettings.DEFAULT_CLUSTER_CAP, tenantLoadBalancerCaps, Map.of());
            }
            Integer cap = at.whole("clusterCap", lb.clusterCap());
            Map<String, Integer> pools = new LinkedHashMap<>();
            for (Item<AddressPool> i : at.items("addressPools", lb.addressPools())) {
                AddressPool p = i.value();
                At pat = i.at();
                String region = pat.str("region", p.region());
                pat.check("region", ZONE.matcher(region).matches() && !Locations.isZone(region), "'" + region
                        + "' is not a region name such as us-central1");
                pat.check("region", !pools.containsKey(region), "region '" + region + "' has two address pools");
                Integer limit = pat.whole("limit", p.limit());
                if (limit == null) {
                    throw pat.here("'limit' is required: how many addresses the platform may hold in the region");
                }
                pools.put(region, limit);
            }
            return new LoadBalancerSettings(cap == null ? LoadBalancerSettings.DEFAULT_CLUSTER_CAP : cap, tenantLoadBalancerCaps, pools);
        }

        /**
         * The {@code storage} section: {@code sharedVolumePools} (pools whose new clusters come with a shared volume),
         * {@code sampleEvery} (how often the bytes each volume holds are read; 1m by default) and {@code billing}, the
         * sites (regions) where storage is billed, each with its {@code pricePerGiBMonth}.
         */
        StorageSettings storage(StorageSection storage, At at) {
            Set<String> known = new HashSet<>();
            pools.forEach(p -> known.add(p.id()));
            List<String> volumePools = at.strings("sharedVolumePools", storage.sharedVolumePools(), POOL_ID);
            for (String pool : volumePools) {
                at.check("sharedVolumePools", known.contains(pool), "no pool '" + pool + "' is listed under pools");
            }
            Duration every = at.duration("sampleEvery", storage.sampleEvery(), StorageSettings.DEFAULT_SAMPLE_EVERY);
            at.check("sampleEvery", !every.isZero() && every.compareTo(Duration.ofHours(1)) <= 0, "must be between 1s and 1h");
            Map<String, StoragePrice> prices = new LinkedHashMap<>();
            for (Item<StorageBilling> i : at.items("billing", storage.billing())) {
                StorageBilling b = i.value();
                At bat = i.at();
                String site = bat.str("site", b.site());
                bat.check("site", !prices.containsKey(site), "site '" + site + "' is listed twice");
                bat.check("site", accountZones.values().stream().flatMap(List::stream).anyMatch(z -> z.startsWith(site + "-")),
                        "'" + site + "' is not the region of any account's zone");
                prices.put(site, new StoragePrice(bat.usd("pricePerGiBMonth", b.pricePerGiBMonth(), true)));
            }
            return new StorageSettings(Set.copyOf(volumePools), prices, every);
        }

        /** The {@code market} section: its durations (MARKET.md's by default) and its pools. */
        void market(MarketSection market, At at) {
            MarketDurations d = market.durations();
            if (d != null) {
                At dat = at.key("durations");
                MarketTimings std = MarketTimings.standard();
                Duration notice = dat.duration("notice", d.notice(), std.notice());
                Duration hold = dat.duration("minimumHold", d.minimumHold(), std.minimumHold());
                Duration window = dat.duration("protectionWindow", d.protectionWindow(), std.protection());
                Duration idle = dat.duration("idleGrace", d.idleGrace(), std.idleGrace());
                Duration cover = dat.duration("balanceCover", d.balanceCover(), std.balanceHorizon());
                Duration period = dat.duration("billingPeriod", d.billingPeriod(), std.billingPeriod());
                dat.check("protectionWindow", window.compareTo(hold) >= 0, "must be at least the minimumHold ("
                        + hold + ")");
                // periods end on multiples of themselves: one that divides an hour never straddles one (usage is per hour)
                dat.check("billingPeriod", period.getSeconds() > 0 && period.getNano() == 0
                        && Duration.ofHours(1).getSeconds() % period.getSeconds() == 0, "must be whole seconds that divide an hour, such as 1h, 10m or 30s");
                timings = new MarketTimings(hold, window, notice, idle, cover, period, std.evictionGrace());
            }
            Set<String> ids = new HashSet<>();
            for (Item<MarketPoolEntry> i : at.items("pools", market.pools())) {
                MarketPoolEntry p = i.value();
                At pat = i.at();
                String text = pat.id("id", p.id(), MARKET_POOL, ids);
                String account = pat.str("account", p.account());
                pat.check("account", accountIds.contains(account), "no account '" + account + "' is listed under accounts");
                String zone = pat.str("zone", p.zone());
                pat.check("zone", accountZones.get(account).contains(zone), "'" + zone + "' is not one of the zones of account '"
                        + account + "'");
                PoolId id = PoolId.parse(text);
                pat.check("id", zone.startsWith(id.site() + "-"), "the site '" + id.site() + "' must be the region of zone '"
                        + zone + "'");
                String machineType = pat.str("machineType", p.machineType());
                if (p.accelerator() == null) {
                    throw pat.here("'accelerator' is required: {type, count}");
                }
                At accelerator = pat.key("accelerator");
                String type = accelerator.str("type", p.accelerator().type());
                Integer count = accelerator.whole("count", p.accelerator().count());
                if (count == null) {
                    throw accelerator.here("'count' is required (the GPUs of one node)");
                }
                Integer nodes = pat.whole("nodes", p.nodes());
                if (nodes == null) {
                    throw pat.here("'nodes' is required (the pool's supply)");
                }
                Money reserve = pat.usd("reserve", p.reserve(), true);
                pat.check("reserve", reserve.compareTo(Money.MAX_PRICE) <= 0, "must be at most " + Money.MAX_PRICE + " USD per GPU-hour");
                marketPools.add(new MarketCatalog.PoolSpec(id, account, zone, machineType, type, count, nodes, reserve));
            }
        }

        RoleBinding binding(String principal, BindingEntry b, At at) {
            String tenant = at.optionalStr("tenant", b.tenant());
            String cluster = at.optionalStr("cluster", b.cluster());
            if ((tenant == null) == (cluster == null)) {
                throw at.here("a binding names exactly one of tenant and cluster");
            }
            if (tenant != null) {
                at.check("tenant", tenantIds.contains(tenant), "no tenant '" + tenant + "' is listed under tenants");
            } else {
                at.check("cluster", CLUSTER_ID.matcher(cluster).matches(), "must be a cluster id (" + CLUSTER_ID.pattern() + ")");
            }
            String roleName = at.str("role", b.role());
            Role role = Role.fromWire(roleName).orElseThrow(() -> at.at("role",
                    "must be one of kubernetes-viewer, kubernetes-editor, kubernetes-admin"));
            Map<String, List<String>> where = new LinkedHashMap<>();
            if (b.where() != null) {
                At w = at.key("where");
                b.where().forEach((attribute, values) -> {
                    w.check(attribute, ATTRIBUTES.contains(attribute), "conditions may name " + String.join(", ", new TreeSet<>(ATTRIBUTES)));
                    where.put(attribute, w.strings(attribute, values, null));
                });
            }
            return new RoleBinding(principal, tenant, cluster, role, where);
        }
    }

    /** One entry of a list in the file, with where it is written. */
    private record Item<T>(T value, At at) {
    }

    /** A mapping of the file by its JSON pointer: the checks of its values, each problem told at the line of its key. */
    private record At(YamlLines lines, String pointer) {
        At key(String key) {
            return new At(lines, YamlLines.child(pointer, key));
        }

        CatalogException here(String problem) {
            return new CatalogException(lines.line(pointer), problem);
        }

        CatalogException at(String key, String problem) {
            return new CatalogException(lines.line(YamlLines.child(pointer, key)), key + ": " + problem);
        }

        void check(String key, boolean ok, String problem) {
            if (!ok) {
                throw at(key, problem);
            }
        }

        /** The entries of a list; an entry left empty ({@code - }) is not a mapping. */
        <T> List<Item<T>> items(String key, List<T> values) {
            if (values == null) {
                return List.of();
            }
            At list = key(key);
            List<Item<T>> out = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                At item = new At(lines, YamlLines.child(list.pointer, i));
                if (values.get(i) == null) {
                    throw item.here("each item of " + key + " must be a mapping of keys to values");
                }
                out.add(new Item<>(values.get(i), item));
            }
            return out;
        }

        String optionalStr(String key, String value) {
            if (value != null && value.isEmpty()) {
                throw at(key, "must be a non-empty string");
            }
            return value;
        }

        String str(String key, String value) {
            if (optionalStr(key, value) == null) {
                throw here("'" + key + "' is required");
            }
            return value;
        }

        String id(String key, String value, Pattern pattern, Set<String> seen) {
            String id = str(key, value);
            if (pattern != null) {
                check(key, pattern.matcher(id).matches(), "must match " + pattern.pattern());
            }
            check(key, seen.add(id), "'" + id + "' is listed twice");
            return id;
        }

        String oneOf(String key, String value, List<String> values) {
            String s = str(key, value);
            check(key, values.contains(s), "must be one of " + String.join(", ", values));
            return s;
        }

        Integer whole(String key, BigInteger value) {
            if (value == null) {
                return null;
            }
            Range range = WHOLE.get(key);
            check(key, value.compareTo(BigInteger.valueOf(range.min())) >= 0 && value.compareTo(BigInteger.valueOf(range.max())) <= 0,
                    range.problem());
            return value.intValueExact();
        }

        BigDecimal amount(String key, BigDecimal value) {
            if (value == null) {
                throw here("'" + key + "' is required");
            }
            check(key, value.signum() >= 0, "must be an amount of 0 or more");
            return value;
        }

        /** An amount of USD: a decimal string such as "1.20" (or a plain YAML number), at most six decimals. */
        Money usd(String key, BigDecimal value, boolean required) {
            if (value == null) {
                if (required) {
                    throw here("'" + key + "' is required");
                }
                return null;
            }
            try {
                return Money.parse(value.toPlainString());
            } catch (DomainException e) {
                throw at(key, USD + " (not negative, at most six decimals)");
            }
        }

        List<String> strings(String key, List<String> values, Pattern pattern) {
            if (values == null) {
                return List.of();
            }
            String list = YamlLines.child(pointer, key);
            for (int i = 0; i < values.size(); i++) {
                String s = values.get(i);
                if (s == null || (pattern != null && !pattern.matcher(s).matches())) {
                    throw new CatalogException(lines.line(YamlLines.child(list, i)), key + ": each item must be a string"
                            + (pattern == null ? "" : " matching " + pattern.pattern()));
                }
            }
            return List.copyOf(values);
        }

        /** A duration such as {@code 60s}, {@code 5m}, {@code 1h30m}; more than zero. */
        Duration duration(String key, String value, Duration fallback) {
            String text = optionalStr(key, value);
            if (text == null) {
                return fallback;
            }
            check(key, DURATION.matcher(text).matches(), "must be a duration such as 60s, 5m, 2h or 1h30m");
            Duration total = Duration.ZERO;
            Matcher m = DURATION_PART.matcher(text);
            while (m.find()) {
                long n = Long.parseLong(m.group(1));
                total = total.plus(switch (m.group(2)) {
                    case "h" -> Duration.ofHours(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "s" -> Duration.ofSeconds(n);
                    default -> Duration.ofMillis(n);
                });
            }
            check(key, !total.isZero(), "must be more than zero");
            return total;
        }
    }
}
