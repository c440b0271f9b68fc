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

@fragment
fn fs_main(v: VsOut) -> @location(0) vec4<f32> {
    // Both units are sampled in uniform control flow (an unused unit samples a
    // white texel) and combined afterwards.
    let s0 = textureSample(tex0, samp0, v.t0.xy / v.t0.w);
    let s1 = textureSample(tex1, samp1, v.t1.xy / v.t1.w);
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
