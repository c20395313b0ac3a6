// arith and math on tensors and scalars (f16, f32, bf16, i32, index, i1).
// Results come back as return values; see test_interpreter_ops.py.
func.func @float_ops(%a: tensor<8xf16>, %b: tensor<8xf16>, %x: f32, %y: f32, %c: i1)
    -> (tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>,
        tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>,
        f32, f32, i1, tensor<8xf16>, tensor<8xf32>, tensor<8xi16>, tensor<8xf16>) {
  %add = arith.addf %a, %b : tensor<8xf16>
  %sub = arith.subf %a, %b : tensor<8xf16>
  %mul = arith.mulf %a, %b : tensor<8xf16>
  %div = arith.divf %a, %b : tensor<8xf16>
  %neg = arith.negf %a : tensor<8xf16>
  %max = arith.maximumf %a, %b : tensor<8xf16>
  %maxnum = arith.maxnumf %a, %b : tensor<8xf16>
  %min = arith.minimumf %a, %b : tensor<8xf16>
  %exp = math.exp %a : tensor<8xf16>
  %abs = math.absf %a : tensor<8xf16>
  %sq = arith.mulf %a, %a : tensor<8xf16>
  %sqrt = math.sqrt %sq : tensor<8xf16>
  %rsqrt = math.rsqrt %sq : tensor<8xf16>
  %s = arith.mulf %x, %y : f32
  %t = arith.subf %s, %x : f32
  %lt = arith.cmpf olt, %x, %y : f32
  %sel = arith.select %c, %a, %b : tensor<8xf16>
  %ext = arith.extf %a : tensor<8xf16> to tensor<8xf32>
  %bits = arith.bitcast %a : tensor<8xf16> to tensor<8xi16>
  %tanh = math.tanh %a : tensor<8xf16>
  return %add, %sub, %mul, %div, %neg, %max, %maxnum, %min, %exp, %abs, %sqrt, %rsqrt, %s, %t, %lt, %sel, %ext, %bits, %tanh
      : tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>,
        tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>,
        f32, f32, i1, tensor<8xf16>, tensor<8xf32>, tensor<8xi16>, tensor<8xf16>
}

func.func @int_ops(%i: tensor<8xi32>, %j: tensor<8xi32>, %n: index, %m: index, %k: i32, %sh: i32)
    -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>,
        tensor<8xi32>, tensor<8xi32>, index, index, index, index, i32, i32, i32, i32, f16, i1) {
  %add = arith.addi %i, %j : tensor<8xi32>
  %mul = arith.muli %i, %j : tensor<8xi32>
  %divsi = arith.divsi %i, %j : tensor<8xi32>
  %remsi = arith.remsi %i, %j : tensor<8xi32>
  %floor = arith.floordivsi %i, %j : tensor<8xi32>
  %ceil = arith.ceildivsi %i, %j : tensor<8xi32>
  %divui = arith.divui %i, %j : tensor<8xi32>
  %maxsi = arith.maxsi %i, %j : tensor<8xi32>
  %nm = arith.muli %n, %m : index
  %nd = arith.divsi %n, %m : index
  %nr = arith.remsi %n, %m : index
  %nmin = arith.minsi %n, %m : index
  %kk = arith.muli %k, %k : i32
  %kd = arith.divsi %k, %k : i32
  %ks = arith.shli %k, %sh : i32
  %cast = arith.index_cast %n : index to i32
  %f = arith.sitofp %k : i32 to f16
  %cmp = arith.cmpi slt, %n, %m : index
  return %add, %mul, %divsi, %remsi, %floor, %ceil, %divui, %maxsi, %nm, %nd, %nr, %nmin, %kk, %kd, %ks, %cast, %f, %cmp
      : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>,
        tensor<8xi32>, tensor<8xi32>, index, index, index, index, i32, i32, i32, i32, f16, i1
}

func.func @constants() -> (f16, f16, i32, f32, tensor<4xf16>, tensor<2x2xi32>, tensor<3xbf16>, bf16) {
  %ninf = arith.constant 0xFC00 : f16
  %nan = arith.constant 0x7E00 : f16
  %bits = arith.constant 0xFF800000 : i32
  %asf = arith.bitcast %bits : i32 to f32
  %splat = arith.constant dense<1.5> : tensor<4xf16>
  %mat = arith.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %bf = arith.constant dense<[1.0, 0.1, -3.5]> : tensor<3xbf16>
  %one = arith.constant 1.0 : bf16
  %third = arith.constant 3.0 : bf16
  %q = arith.divf %one, %third : bf16
  return %ninf, %nan, %bits, %asf, %splat, %mat, %bf, %q : f16, f16, i32, f32, tensor<4xf16>, tensor<2x2xi32>, tensor<3xbf16>, bf16
}
