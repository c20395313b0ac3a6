// RUN: %spyre-opt %s -p spyre-fold-reshapes | %FileCheck %s

// CHECK-LABEL: func.func @collapse_of_expand
// CHECK-SAME: (%[[X:.*]]: tensor<128xf16>)
// CHECK: %[[Y:.*]] = math.exp %[[X]] : tensor<128xf16>
// CHECK: return %[[Y]]
func.func @collapse_of_expand(%x: tensor<128xf16>) -> tensor<128xf16> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [1, 128] : tensor<128xf16> into tensor<1x128xf16>
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<1x128xf16> into tensor<128xf16>
  %y = math.exp %c : tensor<128xf16>
  return %y : tensor<128xf16>
}

// CHECK-LABEL: func.func @expand_of_collapse
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf16>)
// CHECK: return %[[X]]
func.func @expand_of_collapse(%x: tensor<2x4xf16>) -> tensor<2x4xf16> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<2x4xf16> into tensor<8xf16>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [2, 4] : tensor<8xf16> into tensor<2x4xf16>
  return %e : tensor<2x4xf16>
}

// Different reassociation: a real reshape, not a round trip.
// CHECK-LABEL: func.func @not_a_round_trip
// CHECK: tensor.expand_shape
// CHECK: tensor.collapse_shape
func.func @not_a_round_trip(%x: tensor<8xf16>) -> tensor<8xf16> {
  %e = tensor.expand_shape %x [[0, 1, 2]] output_shape [2, 2, 2] : tensor<8xf16> into tensor<2x2x2xf16>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x2x2xf16> into tensor<4x2xf16>
  %f = tensor.collapse_shape %c [[0, 1]] : tensor<4x2xf16> into tensor<8xf16>
  return %f : tensor<8xf16>
}

// Dynamic shapes are left alone in the expand-of-collapse direction.
// CHECK-LABEL: func.func @dynamic
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
func.func @dynamic(%x: tensor<?x4xf16>, %n: index) -> tensor<?x4xf16> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<?x4xf16> into tensor<?xf16>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [%n, 4] : tensor<?xf16> into tensor<?x4xf16>
  return %e : tensor<?x4xf16>
}

// A round trip through different reassociations (an extent-1 axis leaves with
// one neighbour and comes back with another, as physicalized values do) is
// still the identity: row-major order never changes.
// CHECK-LABEL: func.func @unit_axis_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x64xf32>)
// CHECK: %[[Y:.*]] = math.exp %[[X]] : tensor<2x1x64xf32>
func.func @unit_axis_round_trip(%x: tensor<2x1x64xf32>) -> tensor<2x1x64xf32> {
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x1x64xf32> into tensor<2x64xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [2, 1, 64] : tensor<2x64xf32> into tensor<2x1x64xf32>
  %y = math.exp %e : tensor<2x1x64xf32>
  return %y : tensor<2x1x64xf32>
}

// The other direction, through different groups.
// CHECK-LABEL: func.func @expand_collapse_different_groups
// CHECK-SAME: (%[[X:.*]]: tensor<1x128xf32>)
// CHECK: return %[[X]]
func.func @expand_collapse_different_groups(%x: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 2, 64] : tensor<1x128xf32> into tensor<1x2x64xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<1x2x64xf32> into tensor<2x64xf32>
  %f = tensor.expand_shape %c [[0, 1], [2]] output_shape [1, 2, 64] : tensor<2x64xf32> into tensor<1x2x64xf32>
  %g = tensor.collapse_shape %f [[0], [1, 2]] : tensor<1x2x64xf32> into tensor<1x128xf32>
  return %g : tensor<1x128xf32>
}
