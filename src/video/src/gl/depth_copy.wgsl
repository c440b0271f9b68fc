// glReadPixels of GL_DEPTH_COMPONENT: wgpu cannot copy the depth aspect of a
// Depth24PlusStencil8 texture to a buffer, so this pass loads the depth of a
// rectangle starting at `origin` (top-left, in texels) into an R32Float target
// of the rectangle's size, which can be copied.

@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var<uniform> origin: vec4<u32>;

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    // One triangle covering the target.
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let at = vec2<u32>(p.xy) + origin.xy;
    return vec4<f32>(textureLoad(depth, at, 0), 0.0, 0.0, 1.0);
}
