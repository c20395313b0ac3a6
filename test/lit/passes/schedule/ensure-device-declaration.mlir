// ensure-device-declaration: a module without a ktdf_arch.device declares the
// one of device-filename (dataflow-scheduler's pass, its options and messages).

// RUN: %spyre-opt %s --split-input-file -p 'ensure-device-declaration{device-filename=%S/../../dialects/ktdf_arch/Inputs/card.mlir}' | %FileCheck %s

// No device: one is declared, named after the file's only device, by absolute path.
// CHECK-LABEL: module {
// CHECK-NEXT: ktdf_arch.device @imported import("{{.*}}card.mlir")
// CHECK-NEXT: func.func @k
module {
  func.func @k() {
    return
  }
}

// -----
// A device is declared already: the module is left as it is.
// CHECK-LABEL: module {
// CHECK-NEXT: ktdf_arch.device @mine {
// CHECK-NOT: ktdf_arch.device
module {
  ktdf_arch.device @mine {
    group share() {
      %m = memory {kind = "LX", size = 4096}
    }
  }
}

// device-name picks the device of the file.
// RUN: %spyre-opt %s --split-input-file -p 'ensure-device-declaration{device-filename=%S/../../dialects/ktdf_arch/Inputs/card.mlir device-name=imported}' | %FileCheck %s --check-prefix=NAMED
// NAMED: ktdf_arch.device @imported import("{{.*}}card.mlir")

// The declared device is read: a name the file does not have is an error.
// RUN: not %spyre-opt %s --split-input-file -p 'ensure-device-declaration{device-filename=%S/../../dialects/ktdf_arch/Inputs/card.mlir device-name=other}' 2>&1 | %FileCheck %s --check-prefix=NONAME
// NONAME: error: 'ktdf_arch.device' op unable to import device graph: no device named 'other'

// No device and no file: an error at the module.
// RUN: not %spyre-opt %s --split-input-file -p ensure-device-declaration 2>&1 | %FileCheck %s --check-prefix=NOFILE
// NOFILE: ensure-device-declaration.mlir:10:1: error: no 'ktdf_arch.device' is present in the module and no device file name is provided to ensure-device-declaration pass

// A file that does not exist, or holds no device.
// RUN: not %spyre-opt %s --split-input-file -p 'ensure-device-declaration{device-filename=%t.missing.mlir}' 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: error: unable to import device: cannot open input file '{{.*}}missing.mlir'
// RUN: echo 'module {}' > %t.empty.mlir
// RUN: not %spyre-opt %s --split-input-file -p 'ensure-device-declaration{device-filename=%t.empty.mlir}' 2>&1 | %FileCheck %s --check-prefix=NODEVICE
// NODEVICE: error: no device in import file
