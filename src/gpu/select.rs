//! Which adapter a rank drives.
//!
//! The adapters wgpu found are narrowed, in this order: to the names containing `--adapter`
//! (case-insensitive); to the best device kind and backend; to the GPUs that the visibility
//! variables of a scheduler or GPU runtime leave visible (`CUDA_VISIBLE_DEVICES`,
//! `ROCR_VISIBLE_DEVICES` then `HIP_VISIBLE_DEVICES`, `ZE_AFFINITY_MASK`, each only for its
//! vendor's adapters). The rank then takes visible GPU `local_rank % visible`: several ranks
//! may share a GPU (16 ranks on 4 GPUs), and a Slurm task started with `--gpus-per-task=1`
//! sees one GPU and takes it whatever its local rank.
//!
//! GPUs are counted in PCI bus id order. That is CUDA's order under
//! `CUDA_DEVICE_ORDER=PCI_BUS_ID`, and under its default (FASTEST_FIRST) too on a node of
//! identical GPUs, which is what HPC nodes hold; ROCm and Level Zero number GPUs in PCI order
//! as well (Level Zero with `ZE_ENABLE_PCI_ID_DEVICE_ORDER=1`). Where an adapter reports no
//! PCI bus id (wgpu fills it from VK_EXT_pci_bus_info), ranks take the adapters in
//! enumeration order, and an index in a visibility variable is refused unless its vendor has
//! a single adapter, as no order can then be trusted to match the runtime's.
//!
//! Everything here is logic over adapter descriptions, with the environment and the NVIDIA
//! driver's files passed in ([`Host`]), so that tests can describe any node.
//!
//! The local rank is MPI's own (split_shared), right under every launcher (mpirun, srun),
//! so the launchers' variables (`SLURM_LOCALID`, `OMPI_COMM_WORLD_LOCAL_RANK`,
//! `MPI_LOCALRANKID`, `PMI_LOCAL_RANK`) are not read.

use crate::error::{Error, Result};
use std::fmt;

const NVIDIA: u32 = 0x10de;
const AMD: u32 = 0x1002;
const INTEL: u32 = 0x8086;

/// The variables that hide GPUs, with the vendor each speaks for, in the order its runtime
/// applies them: HIP numbers the GPUs that ROCR left visible.
const VISIBILITY: [(u32, &str); 4] = [
    (NVIDIA, "CUDA_VISIBLE_DEVICES"),
    (AMD, "ROCR_VISIBLE_DEVICES"),
    (AMD, "HIP_VISIBLE_DEVICES"),
    (INTEL, "ZE_AFFINITY_MASK"),
];

/// Where the NVIDIA driver describes each GPU it drives (`GPU UUID:`, `Bus Location:`).
const NVIDIA_GPU_FOLDER: &str = "/proc/driver/nvidia/gpus";

/// What the choice needs to know of one adapter.
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterDescription {
    pub name: String,
    pub backend: wgpu::Backend,
    pub device_type: wgpu::DeviceType,
    /// PCI vendor id: 0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel.
    pub vendor: u32,
    /// "dddd:bb:dd.f", or empty where the driver does not say. wgpu reports no UUID, so
    /// NVIDIA UUIDs are found through the driver's files by this id.
    pub pci_bus_id: String,
}

impl From<&wgpu::AdapterInfo> for AdapterDescription {
    fn from(info: &wgpu::AdapterInfo) -> Self {
        AdapterDescription {
            name: info.name.clone(),
            backend: info.backend,
            device_type: info.device_type,
            vendor: info.vendor,
            pci_bus_id: info.device_pci_bus_id.clone(),
        }
    }
}

/// A rank's place among the ranks of its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodePlace {
    pub local_rank: usize,
    pub local_size: usize,
}

impl NodePlace {
    /// A run of one rank.
    pub const ALONE: NodePlace = NodePlace {
        local_rank: 0,
        local_size: 1,
    };
}

/// What the choice reads from the machine, passed in so that tests can fake it.
pub struct Host<'a> {
    /// An environment variable's value.
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// The text of each `/proc/driver/nvidia/gpus/*/information` file.
    pub nvidia_gpu_information: &'a dyn Fn() -> Vec<String>,
}

impl Host<'static> {
    /// This process's environment and this machine's NVIDIA driver.
    pub fn real() -> Self {
        Host {
            var: &environment_variable,
            nvidia_gpu_information: &read_nvidia_gpu_information,
        }
    }
}

fn environment_variable(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn read_nvidia_gpu_information() -> Vec<String> {
    let Ok(folders) = std::fs::read_dir(NVIDIA_GPU_FOLDER) else {
        return Vec::new();
    };
    folders
        .flatten()
        .filter_map(|gpu| std::fs::read_to_string(gpu.path().join("information")).ok())
        .collect()
}

/// The adapter chosen, as its index in the list given, and one line saying why, for the
/// run to print so that users can check which rank drives which GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub index: usize,
    pub reason: String,
}

/// Picks the adapter of the rank at `place` among `adapters` (see the module's notes).
pub fn choose(
    adapters: &[AdapterDescription],
    filter: Option<&str>,
    place: NodePlace,
    host: &Host,
) -> Result<Choice> {
    let named = matching_names(adapters, filter)?;
    let (ordered, by_pci) = in_pci_order(adapters, best_kind(adapters, named));
    let mut groups = by_vendor(adapters, &ordered, by_pci);
    for group in &mut groups {
        apply_visibility(adapters, group, host)?;
    }
    let visible: usize = groups.iter().map(|g| g.gpus.len()).sum();
    let mut position = place.local_rank % visible.max(1);
    for group in &groups {
        if let Some(&index) = group.gpus.get(position) {
            let reason = reason(adapters, group, position, place, filter);
            return Ok(Choice { index, reason });
        }
        position -= group.gpus.len();
    }
    Err(Error::NoAdapter("no adapter found".into()))
}

/// The adapters whose name contains `filter` (all without one).
fn matching_names(adapters: &[AdapterDescription], filter: Option<&str>) -> Result<Vec<usize>> {
    let all = 0..adapters.len();
    let Some(filter) = filter else {
        return Ok(all.collect());
    };
    let want = filter.to_lowercase();
    let named: Vec<usize> = all
        .filter(|&i| adapters[i].name.to_lowercase().contains(&want))
        .collect();
    if named.is_empty() {
        let found: Vec<String> = adapters
            .iter()
            .map(|a| format!("{} ({:?})", a.name, a.backend))
            .collect();
        return Err(Error::NoAdapter(format!(
            "no adapter name contains {filter:?}; found: {}",
            found.join(", ")
        )));
    }
    Ok(named)
}

/// The candidates of the best device kind and backend present. One backend only, so that a
/// GPU two backends show is not counted twice; OpenGL last, as its compute path is another
/// compiler, which must never mix with Vulkan ranks in one run.
fn best_kind(adapters: &[AdapterDescription], candidates: Vec<usize>) -> Vec<usize> {
    let best = candidates.iter().map(|&i| preference(&adapters[i])).min();
    candidates
        .into_iter()
        .filter(|&i| Some(preference(&adapters[i])) == best)
        .collect()
}

fn preference(adapter: &AdapterDescription) -> (u8, u8) {
    let kind = match adapter.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let backend = match adapter.backend {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        wgpu::Backend::Gl => 4,
        _ => 3,
    };
    (kind, backend)
}

/// The candidates in PCI bus id order, and whether every one had an id to order by (if
/// not, they stay in enumeration order).
fn in_pci_order(adapters: &[AdapterDescription], mut candidates: Vec<usize>) -> (Vec<usize>, bool) {
    let address = |i: &usize| PciAddress::parse(&adapters[*i].pci_bus_id);
    if !candidates.iter().all(|i| address(i).is_some()) {
        return (candidates, false);
    }
    candidates.sort_by_key(address);
    (candidates, true)
}

/// A PCI address, which orders as the bus does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct PciAddress {
    domain: u32,
    bus: u8,
    device: u8,
    function: u8,
}

impl PciAddress {
    /// "dddd:bb:dd.f" (the domain may have 8 digits, as nvidia-smi writes it, or be left out).
    fn parse(text: &str) -> Option<PciAddress> {
        let text = text.trim();
        let (domain, rest) = match text.matches(':').count() {
            2 => text.split_once(':')?,
            1 => ("0", text),
            _ => return None,
        };
        let (bus, rest) = rest.split_once(':')?;
        let (device, function) = rest.split_once('.')?;
        Some(PciAddress {
            domain: u32::from_str_radix(domain, 16).ok()?,
            bus: u8::from_str_radix(bus, 16).ok()?,
            device: u8::from_str_radix(device, 16).ok()?,
            function: u8::from_str_radix(function, 16).ok()?,
        })
    }
}

impl fmt::Display for PciAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

/// One vendor's GPUs, in the order its runtime numbers them.
struct VendorGpus {
    vendor: u32,
    gpus: Vec<usize>,
    /// Whether the order is the PCI order (or a variable's), so that an index can be trusted.
    order_known: bool,
    by_pci: bool,
    /// "NAME=VALUE" of each variable applied.
    applied: Vec<String>,
}

/// The ordered candidates split by vendor, vendors in order of first appearance.
fn by_vendor(adapters: &[AdapterDescription], ordered: &[usize], by_pci: bool) -> Vec<VendorGpus> {
    let mut groups: Vec<VendorGpus> = Vec::new();
    for &i in ordered {
        let vendor = adapters[i].vendor;
        match groups.iter_mut().find(|g| g.vendor == vendor) {
            Some(group) => group.gpus.push(i),
            None => groups.push(VendorGpus {
                vendor,
                gpus: vec![i],
                order_known: by_pci,
                by_pci,
                applied: Vec::new(),
            }),
        }
    }
    for group in &mut groups {
        // A single GPU has one order whatever the ids.
        group.order_known |= group.gpus.len() == 1;
    }
    groups
}

/// Narrows `group` by each of its vendor's variables that is set.
fn apply_visibility(
    adapters: &[AdapterDescription],
    group: &mut VendorGpus,
    host: &Host,
) -> Result<()> {
    for (_, name) in VISIBILITY.iter().filter(|(v, _)| *v == group.vendor) {
        let Some(value) = (host.var)(name) else {
            continue;
        };
        let setting = Setting {
            name,
            value: &value,
        };
        group.gpus = visible_under(adapters, group, setting, host)?;
        group.order_known = true;
        group.applied.push(setting.to_string());
    }
    Ok(())
}

/// A visibility variable and its value, as messages name them.
#[derive(Clone, Copy)]
struct Setting<'a> {
    name: &'a str,
    value: &'a str,
}

impl fmt::Display for Setting<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.value)
    }
}

fn refuse(setting: Setting, why: impl fmt::Display) -> Error {
    Error::NoAdapter(format!("{setting}: {why}"))
}

/// The GPUs of `group` that `setting` leaves visible, in its order.
fn visible_under(
    adapters: &[AdapterDescription],
    group: &VendorGpus,
    setting: Setting,
    host: &Host,
) -> Result<Vec<usize>> {
    let mut visible = Vec::new();
    for entry in entries(setting)? {
        let gpu = match entry {
            Entry::Index(k) => by_index(adapters, group, k, setting)?,
            Entry::Uuid(uuid) => by_uuid(adapters, group, &uuid, setting, host)?,
        };
        // ZE's "0.0,0.1" names two parts of one GPU.
        if !visible.contains(&gpu) {
            visible.push(gpu);
        }
    }
    Ok(visible)
}

enum Entry {
    Index(usize),
    Uuid(String),
}

fn entries(setting: Setting) -> Result<Vec<Entry>> {
    let value = setting.value.trim();
    if value.is_empty() || value == "-1" || value.eq_ignore_ascii_case("NoDevFiles") {
        return Err(refuse(
            setting,
            "the job leaves this rank no GPU; ask the scheduler for GPUs \
             (e.g. `srun --gpus-per-task=1`) or unset the variable",
        ));
    }
    value
        .split(',')
        .map(|text| entry(setting, text.trim()))
        .collect()
}

fn entry(setting: Setting, text: &str) -> Result<Entry> {
    let upper = text.to_ascii_uppercase();
    if upper.starts_with("MIG-") {
        return Err(refuse(
            setting,
            format!(
                "{text} is a MIG instance; quadflood drives GPUs through Vulkan, which cannot \
                 open MIG instances: ask for whole GPUs"
            ),
        ));
    }
    if upper.starts_with("GPU-") {
        if setting.name != "CUDA_VISIBLE_DEVICES" {
            return Err(refuse(
                setting,
                format!("{text}: only NVIDIA UUIDs can be matched to adapters; give indices"),
            ));
        }
        return Ok(Entry::Uuid(text.to_ascii_lowercase()));
    }
    // ZE_AFFINITY_MASK's N.M is tile M of card N, and quadflood drives whole cards. (This
    // reads N as a card, as Level Zero's COMPOSITE hierarchy does; its FLAT one numbers tiles.)
    let index = match setting.name {
        "ZE_AFFINITY_MASK" => text.split('.').next().unwrap_or(text),
        _ => text,
    };
    index.parse().map(Entry::Index).map_err(|_| {
        refuse(
            setting,
            format!("{text:?} is neither a GPU index nor a GPU UUID"),
        )
    })
}

fn by_index(
    adapters: &[AdapterDescription],
    group: &VendorGpus,
    k: usize,
    setting: Setting,
) -> Result<usize> {
    let vendor = vendor_name(group.vendor);
    if !group.order_known {
        return Err(refuse(
            setting,
            format!(
                "the {vendor} adapters report no PCI bus id, so GPU {k} cannot be told apart; \
                 unset {} to let ranks take the adapters in enumeration order",
                setting.name
            ),
        ));
    }
    group.gpus.get(k).copied().ok_or_else(|| {
        refuse(
            setting,
            format!(
                "there is no GPU {k}: {} {vendor} adapter(s) visible, at {}",
                group.gpus.len(),
                bus_ids(adapters, &group.gpus)
            ),
        )
    })
}

fn by_uuid(
    adapters: &[AdapterDescription],
    group: &VendorGpus,
    uuid: &str,
    setting: Setting,
    host: &Host,
) -> Result<usize> {
    let known = nvidia_uuids(&(host.nvidia_gpu_information)());
    // CUDA takes any prefix of a UUID that names one GPU.
    let matching: Vec<usize> = group
        .gpus
        .iter()
        .copied()
        .filter(|&i| uuid_of(&adapters[i], &known).is_some_and(|u| u.starts_with(uuid)))
        .collect();
    match matching[..] {
        [gpu] => Ok(gpu),
        [] => Err(refuse(
            setting,
            format!(
                "no adapter has UUID {uuid}; {}; adapters at {}",
                describe_uuids(&known),
                bus_ids(adapters, &group.gpus)
            ),
        )),
        _ => Err(refuse(
            setting,
            format!("{uuid} begins the UUIDs of several GPUs; give more of it"),
        )),
    }
}

/// (UUID in lower case, PCI address) of each GPU the NVIDIA driver describes.
fn nvidia_uuids(information_files: &[String]) -> Vec<(String, PciAddress)> {
    information_files
        .iter()
        .filter_map(|text| {
            let field = |key: &str| {
                text.lines()
                    .filter_map(|line| line.split_once(':'))
                    .find(|(k, _)| k.trim() == key)
                    .map(|(_, v)| v.trim().to_string())
            };
            let uuid = field("GPU UUID")?.to_ascii_lowercase();
            Some((uuid, PciAddress::parse(&field("Bus Location")?)?))
        })
        .collect()
}

fn uuid_of(adapter: &AdapterDescription, known: &[(String, PciAddress)]) -> Option<String> {
    let address = PciAddress::parse(&adapter.pci_bus_id)?;
    known
        .iter()
        .find(|(_, at)| *at == address)
        .map(|(uuid, _)| uuid.clone())
}

fn describe_uuids(known: &[(String, PciAddress)]) -> String {
    if known.is_empty() {
        return format!("no {NVIDIA_GPU_FOLDER}/*/information file could be read");
    }
    let listed: Vec<String> = known.iter().map(|(u, at)| format!("{u} at {at}")).collect();
    format!("the NVIDIA driver lists {}", listed.join(", "))
}

fn bus_ids(adapters: &[AdapterDescription], gpus: &[usize]) -> String {
    let ids: Vec<String> = gpus.iter().map(|&i| bus_id(&adapters[i])).collect();
    ids.join(", ")
}

fn bus_id(adapter: &AdapterDescription) -> String {
    match adapter.pci_bus_id.as_str() {
        "" => "no pci bus id".into(),
        id => format!("pci {id}"),
    }
}

fn vendor_name(vendor: u32) -> String {
    match vendor {
        NVIDIA => "NVIDIA".into(),
        AMD => "AMD".into(),
        INTEL => "Intel".into(),
        other => format!("vendor {other:#06x}"),
    }
}

/// "local rank 3 of 4: NVIDIA H100 (pci 0000:41:00.0), GPU 1 of CUDA_VISIBLE_DEVICES=2,3".
fn reason(
    adapters: &[AdapterDescription],
    group: &VendorGpus,
    position: usize,
    place: NodePlace,
    filter: Option<&str>,
) -> String {
    let adapter = &adapters[group.gpus[position]];
    let source = if group.applied.is_empty() {
        let order = if group.by_pci { "PCI" } else { "enumeration" };
        let named = filter.map_or(String::new(), |f| format!(" matching --adapter {f:?}"));
        format!(
            "GPU {position} of {} {} adapter(s){named} in {order} order",
            group.gpus.len(),
            vendor_name(group.vendor)
        )
    } else {
        format!("GPU {position} of {}", group.applied.join(" then "))
    };
    format!(
        "local rank {} of {}: {} ({}), {source}",
        place.local_rank,
        place.local_size,
        adapter.name,
        bus_id(adapter)
    )
}

#[cfg(test)]
mod tests;
