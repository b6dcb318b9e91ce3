//! WGSL checks that need no GPU. naga is the validator wgpu itself runs, so a kernel that passes
//! here compiles on every backend; running it first turns a shader mistake into a readable
//! [`Error::Wgsl`] instead of a device validation error, and lets the kernel description be
//! compared against what the shader actually declares before any pipeline exists.

use naga::valid::{Capabilities, ValidationFlags, Validator};
use naga::{AddressSpace, ShaderStage, StorageAccess};

use crate::error::{Error, Result};
use crate::kernel::KernelSpec;

/// Parses and validates `src` with the WebGPU baseline capabilities, returning the module or
/// naga's report (with the offending source line) as [`Error::Wgsl`].
pub fn validate_wgsl(src: &str) -> Result<naga::Module> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| Error::Wgsl(e.emit_to_string(src)))?;
    Validator::new(ValidationFlags::all(), Capabilities::default())
        .validate(&module)
        .map_err(|e| Error::Wgsl(e.emit_to_string(src)))?;
    Ok(module)
}

/// Checks that the shader's compute entry point, workgroup size and storage bindings are the
/// ones `spec` describes. The bind group layout is built from the spec alone, so any
/// disagreement here would otherwise surface as a pipeline validation failure.
pub fn check_module(spec: &KernelSpec, module: &naga::Module) -> Result<()> {
    let name = spec.name();
    let entry =
        module.entry_points.iter().find(|ep| ep.name == spec.entry() && ep.stage == ShaderStage::Compute).ok_or_else(
            || {
                let found: Vec<&str> = module
                    .entry_points
                    .iter()
                    .filter(|ep| ep.stage == ShaderStage::Compute)
                    .map(|ep| ep.name.as_str())
                    .collect();
                Error::kernel(name, format!("no compute entry point `{}` (found {found:?})", spec.entry()))
            },
        )?;
    if entry.workgroup_size_overrides.is_some() {
        return Err(Error::kernel(name, "workgroup sizes set by pipeline overrides are not supported"));
    }
    if entry.workgroup_size != spec.workgroup_size() {
        return Err(Error::kernel(
            name,
            format!(
                "the shader's @workgroup_size is {:?} but the spec says {:?}",
                entry.workgroup_size,
                spec.workgroup_size()
            ),
        ));
    }
    for (_, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        let var_name = var.name.as_deref().unwrap_or("<unnamed>");
        if binding.group != 0 {
            return Err(Error::kernel(
                name,
                format!("`{var_name}` is in @group({}); kernels use group 0 only", binding.group),
            ));
        }
        let Some(declared) = spec.bindings().get(binding.binding as usize) else {
            return Err(Error::kernel(
                name,
                format!(
                    "the shader declares @binding({}) `{var_name}` but the spec has {} bindings",
                    binding.binding,
                    spec.bindings().len()
                ),
            ));
        };
        let AddressSpace::Storage { access } = var.space else {
            return Err(Error::kernel(
                name,
                format!("`{var_name}` is not a storage buffer; kernels bind storage buffers only"),
            ));
        };
        let read_only = !access.contains(StorageAccess::STORE);
        if read_only != declared.read_only() {
            let (shader, spec_says) = if read_only { ("read", "read_write") } else { ("read_write", "read") };
            return Err(Error::kernel(
                name,
                format!(
                    "@binding({}) `{var_name}` is var<storage, {shader}> but the spec says {spec_says}",
                    binding.binding
                ),
            ));
        }
    }
    Ok(())
}
