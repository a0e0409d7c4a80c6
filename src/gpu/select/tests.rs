use super::*;
use std::collections::HashMap;

fn adapter(name: &str, vendor: u32, pci_bus_id: &str) -> AdapterDescription {
    AdapterDescription {
        name: name.into(),
        backend: wgpu::Backend::Vulkan,
        device_type: wgpu::DeviceType::DiscreteGpu,
        vendor,
        pci_bus_id: pci_bus_id.into(),
    }
}

/// Four H100s, enumerated in another order than their PCI buses (18, 41, 81, c1), and
/// lavapipe: GPU k in PCI order is at `H100_BUSES[k]`.
const H100_BUSES: [&str; 4] = [
    "0000:18:00.0",
    "0000:41:00.0",
    "0000:81:00.0",
    "0000:c1:00.0",
];

fn four_h100s() -> Vec<AdapterDescription> {
    let mut lavapipe = adapter("llvmpipe (LLVM 15.0.7, 256 bits)", 0x10005, "");
    lavapipe.device_type = wgpu::DeviceType::Cpu;
    [2, 0, 3, 1]
        .iter()
        .map(|&k| adapter("NVIDIA H100 80GB HBM3", NVIDIA, H100_BUSES[k]))
        .chain([lavapipe])
        .collect()
}

/// A node as the tests describe it: its adapters, environment and NVIDIA driver files.
struct Node {
    adapters: Vec<AdapterDescription>,
    variables: HashMap<String, String>,
    nvidia_information: Vec<String>,
}

impl Node {
    fn new(adapters: Vec<AdapterDescription>) -> Node {
        Node {
            adapters,
            variables: HashMap::new(),
            nvidia_information: Vec::new(),
        }
    }

    fn with(mut self, name: &str, value: &str) -> Node {
        self.variables.insert(name.into(), value.into());
        self
    }

    fn choose(&self, filter: Option<&str>, local_rank: usize, local_size: usize) -> Result<Choice> {
        let var = |name: &str| self.variables.get(name).cloned();
        let information = || self.nvidia_information.clone();
        let host = Host {
            var: &var,
            nvidia_gpu_information: &information,
        };
        let place = NodePlace {
            local_rank,
            local_size,
        };
        choose(&self.adapters, filter, place, &host)
    }

    /// The PCI bus id each of `ranks` local ranks drives.
    fn buses(&self, filter: Option<&str>, ranks: usize) -> Vec<&str> {
        (0..ranks)
            .map(|rank| {
                let choice = self.choose(filter, rank, ranks).unwrap();
                self.adapters[choice.index].pci_bus_id.as_str()
            })
            .collect()
    }

    fn refusal(&self, local_rank: usize) -> String {
        match self.choose(None, local_rank, 1) {
            Err(Error::NoAdapter(message)) => message,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}

fn h100(k: usize) -> &'static str {
    H100_BUSES[k]
}

#[test]
fn without_variables_ranks_take_the_gpus_in_pci_order_and_wrap() {
    let node = Node::new(four_h100s());
    let expected: Vec<&str> = (0..6).map(|r| h100(r % 4)).collect();
    assert_eq!(node.buses(None, 6), expected);
    let reason = node.choose(None, 1, 6).unwrap().reason;
    assert_eq!(
        reason,
        "local rank 1 of 6: NVIDIA H100 80GB HBM3 (pci 0000:41:00.0), \
         GPU 1 of 4 NVIDIA adapter(s) in PCI order"
    );
}

#[test]
fn sixteen_ranks_share_four_gpus() {
    let node = Node::new(four_h100s());
    let buses = node.buses(None, 16);
    for k in 0..4 {
        assert_eq!(buses.iter().filter(|b| **b == h100(k)).count(), 4);
    }
}

#[test]
fn the_adapter_filter_narrows_and_ranks_spread_over_the_matching_gpus() {
    let mut adapters = four_h100s();
    adapters[0].name = "NVIDIA A100-SXM4-40GB".into(); // GPU 2 in PCI order
    adapters[1].name = "NVIDIA A100-SXM4-40GB".into(); // GPU 0
    let node = Node::new(adapters);
    assert_eq!(
        node.buses(Some("h100"), 3),
        [h100(1), h100(3), h100(1)],
        "the bug this fixes: every rank opened the first match"
    );
    assert_eq!(node.buses(Some("A100"), 2), [h100(0), h100(2)]);
    let reason = node.choose(Some("h100"), 1, 3).unwrap().reason;
    assert!(
        reason.ends_with("GPU 1 of 2 NVIDIA adapter(s) matching --adapter \"h100\" in PCI order"),
        "{reason}"
    );
}

#[test]
fn a_filter_without_match_lists_the_names_found() {
    let node = Node::new(four_h100s());
    let Err(Error::NoAdapter(message)) = node.choose(Some("Radeon"), 0, 1) else {
        panic!("expected a refusal");
    };
    assert!(message.contains("\"Radeon\""), "{message}");
    assert!(
        message.contains("NVIDIA H100 80GB HBM3") && message.contains("llvmpipe"),
        "{message}"
    );
}

#[test]
fn a_filter_may_pick_a_lesser_kind() {
    let node = Node::new(four_h100s());
    let choice = node.choose(Some("llvmpipe"), 3, 4).unwrap();
    assert_eq!(choice.index, 4);
}

#[test]
fn cuda_visible_devices_indices_count_in_pci_order() {
    let node = Node::new(four_h100s()).with("CUDA_VISIBLE_DEVICES", "2,3");
    assert_eq!(node.buses(None, 4), [h100(2), h100(3), h100(2), h100(3)]);
    let reason = node.choose(None, 3, 4).unwrap().reason;
    assert_eq!(
        reason,
        "local rank 3 of 4: NVIDIA H100 80GB HBM3 (pci 0000:c1:00.0), \
         GPU 1 of CUDA_VISIBLE_DEVICES=2,3"
    );
}

#[test]
fn the_order_of_the_entries_is_kept() {
    let node = Node::new(four_h100s()).with("CUDA_VISIBLE_DEVICES", "3, 0");
    assert_eq!(node.buses(None, 2), [h100(3), h100(0)]);
}

#[test]
fn one_entry_per_task_gives_every_task_its_own_gpu() {
    // srun --gpus-per-task=1: each task sees one GPU, whatever its local rank.
    for (local_rank, k) in [(0, 2), (1, 0), (2, 3), (3, 1)] {
        let node = Node::new(four_h100s()).with("CUDA_VISIBLE_DEVICES", &k.to_string());
        let choice = node.choose(None, local_rank, 4).unwrap();
        assert_eq!(node.adapters[choice.index].pci_bus_id, h100(k));
    }
    // Where cgroups hide the other GPUs, Slurm numbers the task's one GPU 0.
    let only = vec![adapter("NVIDIA H100 80GB HBM3", NVIDIA, h100(2))];
    let node = Node::new(only).with("CUDA_VISIBLE_DEVICES", "0");
    assert_eq!(node.choose(None, 3, 4).unwrap().index, 0);
}

fn information(uuid: &str, bus: &str) -> String {
    format!(
        "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 41\nGPU UUID: \t {uuid}\n\
         Video BIOS: \t 96.00.da.00.0c\nBus Type: \t PCIe\nBus Location: \t {bus}\n\
         Device Minor: \t 0\nGPU Excluded:\t No\n"
    )
}

const UUIDS: [&str; 4] = [
    "GPU-6bc91aa6-b11d-cfaf-2426-e4481e48b6be",
    "GPU-a9f52ae8-1b61-aa1a-4748-57be1f0b97b6",
    "GPU-0d1e2f3a-4b5c-6d7e-8f90-a1b2c3d4e5f6",
    "GPU-a9f00000-0000-0000-0000-000000000000",
];

fn node_with_uuids(value: &str) -> Node {
    let mut node = Node::new(four_h100s()).with("CUDA_VISIBLE_DEVICES", value);
    node.nvidia_information = (0..4).map(|k| information(UUIDS[k], h100(k))).collect();
    node
}

#[test]
fn uuids_are_matched_through_the_nvidia_driver_files() {
    let value = format!("{},{}", UUIDS[3], UUIDS[1].to_uppercase());
    let node = node_with_uuids(&value);
    assert_eq!(node.buses(None, 3), [h100(3), h100(1), h100(3)]);
    // A prefix that names one GPU is enough, as for CUDA.
    let node = node_with_uuids("GPU-0d1e2f3a");
    assert_eq!(node.buses(None, 1), [h100(2)]);
}

#[test]
fn unknown_or_ambiguous_uuids_are_refused() {
    let message = node_with_uuids("GPU-ffffffff").refusal(0);
    assert!(
        message.starts_with("CUDA_VISIBLE_DEVICES=GPU-ffffffff: no adapter has UUID"),
        "{message}"
    );
    assert!(
        message.contains(&format!("{} at {}", UUIDS[0].to_lowercase(), h100(0))),
        "{message}"
    );
    let message = node_with_uuids("GPU-a9f").refusal(0);
    assert!(message.contains("several GPUs"), "{message}");
    let mut unreadable = node_with_uuids(UUIDS[0]);
    unreadable.nvidia_information.clear();
    let message = unreadable.refusal(0);
    assert!(
        message.contains("no /proc/driver/nvidia/gpus/*/information file could be read"),
        "{message}"
    );
}

#[test]
fn mig_instances_are_refused() {
    let value = format!("MIG-{}/1/0", &UUIDS[0][4..]);
    let message = node_with_uuids(&value).refusal(0);
    assert!(
        message.contains("is a MIG instance") && message.contains("Vulkan"),
        "{message}"
    );
}

#[test]
fn a_value_that_hides_every_gpu_is_refused() {
    for value in ["", " ", "-1", "NoDevFiles"] {
        let message = Node::new(four_h100s())
            .with("CUDA_VISIBLE_DEVICES", value)
            .refusal(0);
        assert!(
            message.contains("leaves this rank no GPU"),
            "{value:?}: {message}"
        );
    }
}

#[test]
fn bad_entries_and_missing_gpus_are_refused() {
    let message = Node::new(four_h100s())
        .with("CUDA_VISIBLE_DEVICES", "0,x")
        .refusal(0);
    assert!(message.contains("\"x\" is neither"), "{message}");
    let message = Node::new(four_h100s())
        .with("CUDA_VISIBLE_DEVICES", "1,4")
        .refusal(0);
    assert!(
        message.contains("there is no GPU 4: 4 NVIDIA adapter(s) visible"),
        "{message}"
    );
    assert!(message.contains(h100(3)), "{message}");
}

fn amd_node() -> Vec<AdapterDescription> {
    [
        "0000:c1:00.0",
        "0000:c6:00.0",
        "0000:c9:00.0",
        "0000:ce:00.0",
    ]
    .iter()
    .map(|bus| adapter("AMD Instinct MI250X", AMD, bus))
    .collect()
}

#[test]
fn rocr_and_hip_variables_apply_to_amd_gpus_hip_after_rocr() {
    let node = Node::new(amd_node()).with("ROCR_VISIBLE_DEVICES", "1,3");
    assert_eq!(node.buses(None, 2), ["0000:c6:00.0", "0000:ce:00.0"]);
    let node = Node::new(amd_node()).with("HIP_VISIBLE_DEVICES", "2");
    assert_eq!(node.buses(None, 1), ["0000:c9:00.0"]);
    // HIP numbers the GPUs ROCR left visible.
    let node = node.with("ROCR_VISIBLE_DEVICES", "1,2,3");
    assert_eq!(node.buses(None, 1), ["0000:ce:00.0"]);
    let reason = node.choose(None, 0, 1).unwrap().reason;
    assert!(
        reason.ends_with("GPU 0 of ROCR_VISIBLE_DEVICES=1,2,3 then HIP_VISIBLE_DEVICES=2"),
        "{reason}"
    );
}

#[test]
fn ze_affinity_mask_applies_to_intel_gpus_by_whole_device() {
    let intel: Vec<AdapterDescription> = ["0000:18:00.0", "0000:42:00.0", "0000:6c:00.0"]
        .iter()
        .map(|bus| adapter("Intel(R) Data Center GPU Max 1550", INTEL, bus))
        .collect();
    let node = Node::new(intel.clone()).with("ZE_AFFINITY_MASK", "2.0,2.1,0");
    assert_eq!(
        node.buses(None, 3),
        ["0000:6c:00.0", "0000:18:00.0", "0000:6c:00.0"]
    );
    let node = Node::new(intel).with("ZE_AFFINITY_MASK", "1");
    assert_eq!(node.buses(None, 2), ["0000:42:00.0", "0000:42:00.0"]);
}

#[test]
fn a_variable_of_another_vendor_is_ignored() {
    // Slurm may set every vendor's variable; each speaks only for its vendor's GPUs.
    let node = Node::new(amd_node())
        .with("CUDA_VISIBLE_DEVICES", "7")
        .with("ZE_AFFINITY_MASK", "");
    assert_eq!(node.buses(None, 2), ["0000:c1:00.0", "0000:c6:00.0"]);
    let node = Node::new(four_h100s()).with("ROCR_VISIBLE_DEVICES", "-1");
    assert_eq!(node.buses(None, 1), [h100(0)]);
}

#[test]
fn without_pci_bus_ids_ranks_take_the_enumeration_order_and_indices_are_refused() {
    let mut adapters = four_h100s();
    adapters[2].pci_bus_id.clear();
    let node = Node::new(adapters);
    assert_eq!(node.buses(None, 2), [h100(2), h100(0)]);
    assert!(node
        .choose(None, 0, 1)
        .unwrap()
        .reason
        .ends_with("in enumeration order"));
    let node = node.with("CUDA_VISIBLE_DEVICES", "1");
    let message = node.refusal(0);
    assert!(
        message.contains("report no PCI bus id") && message.contains("unset CUDA_VISIBLE_DEVICES"),
        "{message}"
    );
    // A single GPU has one order.
    let only = vec![adapter("NVIDIA H100 80GB HBM3", NVIDIA, "")];
    let node = Node::new(only).with("CUDA_VISIBLE_DEVICES", "0");
    assert_eq!(node.choose(None, 1, 2).unwrap().index, 0);
}

#[test]
fn the_best_kind_and_one_backend_are_kept() {
    let mut adapters = four_h100s();
    let mut gl = adapter("NVIDIA H100 80GB HBM3/PCIe/SSE2", NVIDIA, "");
    gl.backend = wgpu::Backend::Gl;
    adapters.insert(0, gl);
    let node = Node::new(adapters);
    let chosen: Vec<usize> = (0..5)
        .map(|r| node.choose(None, r, 5).unwrap().index)
        .collect();
    assert!(chosen
        .iter()
        .all(|&i| i != 0 && node.adapters[i].backend == wgpu::Backend::Vulkan));
    // OpenGL only where nothing else is.
    let choice = node.choose(Some("SSE2"), 0, 1).unwrap();
    assert_eq!(choice.index, 0);
}

#[test]
fn pci_addresses_parse_and_order_as_the_bus() {
    let parse = |text| PciAddress::parse(text).map(|a| a.to_string());
    assert_eq!(parse("0000:c1:00.0").as_deref(), Some("0000:c1:00.0"));
    assert_eq!(parse("00000000:41:00.1").as_deref(), Some("0000:41:00.1"));
    assert_eq!(parse("41:00.0").as_deref(), Some("0000:41:00.0"));
    assert_eq!(parse(""), None);
    assert_eq!(parse("0000:zz:00.0"), None);
    assert!(PciAddress::parse("0000:41:00.0") < PciAddress::parse("0000:c1:00.0"));
    assert!(PciAddress::parse("0001:00:00.0") > PciAddress::parse("0000:ff:00.0"));
}
