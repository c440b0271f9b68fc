// OpenGL 1.1's fixed-function fragment stage for winterp's GL renderer: two
// texture units with the glTexEnv modes of GL 1.1 table 3.19 (plus ADD), fog
// from the interpolated eye distance, the alpha test. Vertices arrive in clip
// space with the viewport already applied (see glrender.rs).

struct Params {
    // x: alpha function (0 never .. 7 always, 8 off), y: reference.
    alpha: vec4<f32>,
    fog_color: vec4<f32>,
    // x: mode (0 off, 1 linear, 2 exp, 3 exp2), y: density, z: start, w: end.
    fog: vec4<f32>,
    env0: vec4<f32>,
    env1: vec4<f32>,
    // x, z: env mode of units 0 and 1 (0 off, 1 modulate, 2 replace, 3 decal,
    // 4 blend, 5 add); y, w: base format (0 alpha, 1 luminance, 2 luminance-alpha,
    // 3 intensity, 4 rgb, 5 rgba).
    units: vec4<u32>,
    // GL_TEXTURE_BORDER_COLOR of the textures on units 0 and 1.
    border0: vec4<f32>,
    border1: vec4<f32>,
    // x, y: how units 0 and 1 sample (see `manual`); 0 for the hardware sampler.
    sampling: vec4<u32>,
};

@group(0) @binding(0) var<uniform> p: Params;
@group(1) @binding(0) var tex0: texture_2d<f32>;
@group(1) @binding(1) var samp0: sampler;
@group(1) @binding(2) var tex1: texture_2d<f32>;
@group(1) @binding(3) var samp1: sampler;

struct VsIn {
    @location(0) pos: vec4<f32>,
    @location(1) color: vec4<f32>,
    @location(2) t0: vec4<f32>,
    @location(3) t1: vec4<f32>,
    @location(4) fog: f32,
};

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) t0: vec4<f32>,
    @location(2) t1: vec4<f32>,
    @location(3) fog: f32,
};

@vertex
fn vs_main(v: VsIn) -> VsOut {
    var o: VsOut;
    // GL's clip z runs from -w to w; the renderer's depth range is 0..1, and
    // OPENGL32 has folded glDepthRange into z already (z in n*w..f*w).
    o.pos = v.pos;
    o.color = v.color;
    o.t0 = v.t0;
    o.t1 = v.t1;
    o.fog = v.fog;
    return o;
}

fn env(mode: u32, fmt: u32, cf: vec4<f32>, ct: vec4<f32>, cc: vec4<f32>) -> vec4<f32> {
    let has_rgb = fmt != 0u;
    let has_a = fmt == 0u || fmt == 2u || fmt == 3u || fmt == 5u;
    let intensity = fmt == 3u;
    var rgb = cf.rgb;
    var a = cf.a;
    if (mode == 1u) {
        if (has_rgb) { rgb = cf.rgb * ct.rgb; }
        if (has_a) { a = cf.a * ct.a; }
    } else if (mode == 2u) {
        if (has_rgb) { rgb = ct.rgb; }
        if (has_a) { a = ct.a; }
    } else if (mode == 3u) {
        rgb = mix(cf.rgb, ct.rgb, ct.a);
    } else if (mode == 4u) {
        if (has_rgb) { rgb = mix(cf.rgb, cc.rgb, ct.rgb); }
        if (intensity) { a = mix(cf.a, cc.a, ct.a); } else if (has_a) { a = cf.a * ct.a; }
    } else if (mode == 5u) {
        if (has_rgb) { rgb = cf.rgb + ct.rgb; }
        if (intensity) { a = cf.a + ct.a; } else if (has_a) { a = cf.a * ct.a; }
    }
    return clamp(vec4<f32>(rgb, a), vec4<f32>(0.0), vec4<f32>(1.0));
}

fn passes(func: u32, a: f32, r: f32) -> bool {
    // Compared as the 8-bit values the colour buffer holds.
    let x = round(a * 255.0);
    let y = round(r * 255.0);
    switch func {
        case 0u: { return false; }
        case 1u: { return x < y; }
        case 2u: { return x == y; }
        case 3u: { return x <= y; }
        case 4u: { return x > y; }
        case 5u: { return x != y; }
        case 6u: { return x >= y; }
        default: { return true; }
    }
}

// GL_CLAMP with linear filtering mixes the texture's border colour in at the
// edges (GL 1.1 section 3.8: the coordinate is clamped to [0, 1], and the 2 x 2
// texels around it may lie outside the image, where the border is). wgpu's
// samplers have no such mode (ClampToBorder is optional and has only fixed
// colours), so such a unit is sampled here: the level of detail from the
// derivatives of the unclamped coordinates, GL's filters and mipmap selection,
// and texels fetched with textureLoad. `mode` bits: 1-2 wrap s and 3-4 wrap t
// (0 repeat, 1 clamp to edge, 2 clamp), 5 mag linear, 6 min linear, 7-8 mipmaps
// (0 none, 1 nearest, 2 linear), 16-23 the number of levels.

// A wrapped texel index, or -1 for the border.
fn wrap_index(i: i32, n: i32, wrap: u32) -> i32 {
    if (wrap == 0u) {
        return ((i % n) + n) % n;
    }
    if (wrap == 1u) {
        return clamp(i, 0, n - 1);
    }
    if (i < 0 || i >= n) {
        return -1;
    }
    return i;
}

fn texel(t: texture_2d<f32>, i: vec2<i32>, lvl: i32, size: vec2<i32>, mode: u32,
         border: vec4<f32>) -> vec4<f32> {
    let x = wrap_index(i.x, size.x, (mode >> 1u) & 3u);
    let y = wrap_index(i.y, size.y, (mode >> 3u) & 3u);
    if (x < 0 || y < 0) {
        return border;
    }
    return textureLoad(t, vec2<i32>(x, y), lvl);
}

fn filter_level(t: texture_2d<f32>, st: vec2<f32>, lvl: i32, linear: bool, mode: u32,
                border: vec4<f32>) -> vec4<f32> {
    let size = vec2<i32>(textureDimensions(t, lvl));
    var c = st;
    if (((mode >> 1u) & 3u) != 0u) { c.x = clamp(c.x, 0.0, 1.0); }
    if (((mode >> 3u) & 3u) != 0u) { c.y = clamp(c.y, 0.0, 1.0); }
    let u = c * vec2<f32>(size);
    if (!linear) {
        // s = 1 selects the last texel, not the border.
        var i = vec2<i32>(floor(u));
        if (((mode >> 1u) & 3u) != 0u) { i.x = min(i.x, size.x - 1); }
        if (((mode >> 3u) & 3u) != 0u) { i.y = min(i.y, size.y - 1); }
        return texel(t, i, lvl, size, mode, border);
    }
    let f = u - vec2<f32>(0.5);
    let i0 = vec2<i32>(floor(f));
    let a = fract(f);
    let t00 = texel(t, i0, lvl, size, mode, border);
    let t10 = texel(t, i0 + vec2<i32>(1, 0), lvl, size, mode, border);
    let t01 = texel(t, i0 + vec2<i32>(0, 1), lvl, size, mode, border);
    let t11 = texel(t, i0 + vec2<i32>(1, 1), lvl, size, mode, border);
    return mix(mix(t00, t10, a.x), mix(t01, t11, a.x), a.y);
}

fn manual(t: texture_2d<f32>, st: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>, mode: u32,
          border: vec4<f32>) -> vec4<f32> {
    let size = vec2<f32>(textureDimensions(t, 0));
    let rho = max(length(dx * size), length(dy * size));
    let lambda = log2(rho);
    let mag_linear = (mode & 32u) != 0u;
    let min_linear = (mode & 64u) != 0u;
    let mip = (mode >> 7u) & 3u;
    let q = f32(((mode >> 16u) & 255u) - 1u);
    // GL 1.1 section 3.8.2: c = 0.5 for a linear magnification with a nearest
    // mipmap minification, else 0.
    var c = 0.0;
    if (mag_linear && !min_linear && mip != 0u) { c = 0.5; }
    if (!(lambda > c) || mip == 0u) {
        return filter_level(t, st, 0, select(min_linear, mag_linear, !(lambda > c)), mode,
                            border);
    }
    if (mip == 1u) {
        var d = 0.0;
        if (lambda > 0.5) { d = ceil(lambda + 0.5) - 1.0; }
        return filter_level(t, st, i32(min(d, q)), min_linear, mode, border);
    }
    if (lambda >= q) {
        return filter_level(t, st, i32(q), min_linear, mode, border);
    }
    let d1 = floor(lambda);
    let a = filter_level(t, st, i32(d1), min_linear, mode, border);
    let b = filter_level(t, st, i32(d1) + 1, min_linear, mode, border);
    return mix(a, b, lambda - d1);
}

// The fragment stage after texture sampling: env modes, fog, alpha test.
fn shade(v: VsOut, s0: vec4<f32>, s1: vec4<f32>) -> vec4<f32> {
    var c = v.color;
    if (p.units.x != 0u) { c = env(p.units.x, p.units.y, c, s0, p.env0); }
    if (p.units.z != 0u) { c = env(p.units.z, p.units.w, c, s1, p.env1); }
    let mode = u32(p.fog.x);
    if (mode != 0u) {
        let d = v.fog;
        var f = 1.0;
        if (mode == 1u) {
            f = (p.fog.w - d) / (p.fog.w - p.fog.z);
        } else if (mode == 2u) {
            f = exp(-p.fog.y * d);
        } else {
            f = exp(-(p.fog.y * d) * (p.fog.y * d));
        }
        f = clamp(f, 0.0, 1.0);
        c = vec4<f32>(mix(p.fog_color.rgb, c.rgb, f), c.a);
    }
    let func = u32(p.alpha.x);
    if (func != 8u && !passes(func, c.a, p.alpha.y)) {
        discard;
    }
    return c;
}

@fragment
fn fs_main(v: VsOut) -> @location(0) vec4<f32> {
    // Both units are sampled in uniform control flow (an unused unit samples a
    // white texel) and combined afterwards.
    let s0 = textureSample(tex0, samp0, v.t0.xy / v.t0.w);
    let s1 = textureSample(tex1, samp1, v.t1.xy / v.t1.w);
    return shade(v, s0, s1);
}

// The same for draws with a unit that `manual` samples (its own pipelines, so
// that other draws do not pay for it: software rasterisers run both sides of a
// branch).
@fragment
fn fs_border(v: VsOut) -> @location(0) vec4<f32> {
    let st0 = v.t0.xy / v.t0.w;
    let st1 = v.t1.xy / v.t1.w;
    let dx0 = dpdx(st0);
    let dy0 = dpdy(st0);
    let dx1 = dpdx(st1);
    let dy1 = dpdy(st1);
    var s0 = textureSample(tex0, samp0, st0);
    var s1 = textureSample(tex1, samp1, st1);
    if (p.sampling.x != 0u) { s0 = manual(tex0, st0, dx0, dy0, p.sampling.x, p.border0); }
    if (p.sampling.y != 0u) { s1 = manual(tex1, st1, dx1, dy1, p.sampling.y, p.border1); }
    return shade(v, s0, s1);
}
