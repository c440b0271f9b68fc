//! The GL 1.1 enumerants OPENGL32 understands (values from the OpenGL 1.1
//! specification's gl.h), and those of the extensions it offers.

pub const GL_NO_ERROR: u32 = 0;
pub const GL_INVALID_ENUM: u32 = 0x0500;
pub const GL_INVALID_VALUE: u32 = 0x0501;
pub const GL_INVALID_OPERATION: u32 = 0x0502;
pub const GL_STACK_OVERFLOW: u32 = 0x0503;
pub const GL_STACK_UNDERFLOW: u32 = 0x0504;
pub const GL_OUT_OF_MEMORY: u32 = 0x0505;

// Primitives.
pub const GL_POINTS: u32 = 0x0000;
pub const GL_LINES: u32 = 0x0001;
pub const GL_LINE_LOOP: u32 = 0x0002;
pub const GL_LINE_STRIP: u32 = 0x0003;
pub const GL_TRIANGLES: u32 = 0x0004;
pub const GL_TRIANGLE_STRIP: u32 = 0x0005;
pub const GL_TRIANGLE_FAN: u32 = 0x0006;
pub const GL_QUADS: u32 = 0x0007;
pub const GL_QUAD_STRIP: u32 = 0x0008;
pub const GL_POLYGON: u32 = 0x0009;

// Clear bits.
pub const GL_DEPTH_BUFFER_BIT: u32 = 0x0100;
pub const GL_ACCUM_BUFFER_BIT: u32 = 0x0200;
pub const GL_STENCIL_BUFFER_BIT: u32 = 0x0400;
pub const GL_COLOR_BUFFER_BIT: u32 = 0x4000;

// Comparison functions.
pub const GL_NEVER: u32 = 0x0200;
pub const GL_LESS: u32 = 0x0201;
pub const GL_EQUAL: u32 = 0x0202;
pub const GL_LEQUAL: u32 = 0x0203;
pub const GL_GREATER: u32 = 0x0204;
pub const GL_NOTEQUAL: u32 = 0x0205;
pub const GL_GEQUAL: u32 = 0x0206;
pub const GL_ALWAYS: u32 = 0x0207;

// Blend factors.
pub const GL_ZERO: u32 = 0;
pub const GL_ONE: u32 = 1;
pub const GL_SRC_COLOR: u32 = 0x0300;
pub const GL_ONE_MINUS_SRC_COLOR: u32 = 0x0301;
pub const GL_SRC_ALPHA: u32 = 0x0302;
pub const GL_ONE_MINUS_SRC_ALPHA: u32 = 0x0303;
pub const GL_DST_ALPHA: u32 = 0x0304;
pub const GL_ONE_MINUS_DST_ALPHA: u32 = 0x0305;
pub const GL_DST_COLOR: u32 = 0x0306;
pub const GL_ONE_MINUS_DST_COLOR: u32 = 0x0307;
pub const GL_SRC_ALPHA_SATURATE: u32 = 0x0308;

// Faces and winding.
pub const GL_FRONT: u32 = 0x0404;
pub const GL_BACK: u32 = 0x0405;
pub const GL_FRONT_AND_BACK: u32 = 0x0408;
pub const GL_CW: u32 = 0x0900;
pub const GL_CCW: u32 = 0x0901;

// Capabilities.
pub const GL_POINT_SMOOTH: u32 = 0x0B10;
pub const GL_LINE_SMOOTH: u32 = 0x0B20;
pub const GL_LINE_STIPPLE: u32 = 0x0B24;
pub const GL_POLYGON_SMOOTH: u32 = 0x0B41;
pub const GL_POLYGON_STIPPLE: u32 = 0x0B42;
pub const GL_CULL_FACE: u32 = 0x0B44;
pub const GL_LIGHTING: u32 = 0x0B50;
pub const GL_COLOR_MATERIAL: u32 = 0x0B57;
pub const GL_FOG: u32 = 0x0B60;
pub const GL_DEPTH_TEST: u32 = 0x0B71;
pub const GL_STENCIL_TEST: u32 = 0x0B90;
pub const GL_NORMALIZE: u32 = 0x0BA1;
pub const GL_ALPHA_TEST: u32 = 0x0BC0;
pub const GL_DITHER: u32 = 0x0BD0;
pub const GL_BLEND: u32 = 0x0BE2;
pub const GL_LOGIC_OP: u32 = 0x0BF1;
pub const GL_INDEX_LOGIC_OP: u32 = 0x0BF1;
pub const GL_COLOR_LOGIC_OP: u32 = 0x0BF2;
pub const GL_SCISSOR_TEST: u32 = 0x0C11;
pub const GL_TEXTURE_GEN_S: u32 = 0x0C60;
pub const GL_TEXTURE_GEN_T: u32 = 0x0C61;
pub const GL_TEXTURE_GEN_R: u32 = 0x0C62;
pub const GL_TEXTURE_GEN_Q: u32 = 0x0C63;
pub const GL_AUTO_NORMAL: u32 = 0x0D80;
pub const GL_TEXTURE_1D: u32 = 0x0DE0;
pub const GL_TEXTURE_2D: u32 = 0x0DE1;
pub const GL_POLYGON_OFFSET_POINT: u32 = 0x2A01;
pub const GL_POLYGON_OFFSET_LINE: u32 = 0x2A02;
pub const GL_POLYGON_OFFSET_FILL: u32 = 0x8037;
pub const GL_CLIP_PLANE0: u32 = 0x3000;
pub const GL_LIGHT0: u32 = 0x4000;
pub const GL_VERTEX_ARRAY: u32 = 0x8074;
pub const GL_NORMAL_ARRAY: u32 = 0x8075;
pub const GL_COLOR_ARRAY: u32 = 0x8076;
pub const GL_INDEX_ARRAY: u32 = 0x8077;
pub const GL_TEXTURE_COORD_ARRAY: u32 = 0x8078;
pub const GL_EDGE_FLAG_ARRAY: u32 = 0x8079;

// Matrices.
pub const GL_MODELVIEW: u32 = 0x1700;
pub const GL_PROJECTION: u32 = 0x1701;
pub const GL_TEXTURE: u32 = 0x1702;

// Shading.
pub const GL_FLAT: u32 = 0x1D00;
pub const GL_SMOOTH: u32 = 0x1D01;

// Polygon modes.
pub const GL_POINT: u32 = 0x1B00;
pub const GL_LINE: u32 = 0x1B01;
pub const GL_FILL: u32 = 0x1B02;

// Stencil ops.
pub const GL_KEEP: u32 = 0x1E00;
pub const GL_REPLACE: u32 = 0x1E01;
pub const GL_INCR: u32 = 0x1E02;
pub const GL_DECR: u32 = 0x1E03;
pub const GL_INVERT: u32 = 0x150A;

// Strings.
pub const GL_VENDOR: u32 = 0x1F00;
pub const GL_RENDERER: u32 = 0x1F01;
pub const GL_VERSION: u32 = 0x1F02;
pub const GL_EXTENSIONS: u32 = 0x1F03;

// Types.
pub const GL_BYTE: u32 = 0x1400;
pub const GL_UNSIGNED_BYTE: u32 = 0x1401;
pub const GL_SHORT: u32 = 0x1402;
pub const GL_UNSIGNED_SHORT: u32 = 0x1403;
pub const GL_INT: u32 = 0x1404;
pub const GL_UNSIGNED_INT: u32 = 0x1405;
pub const GL_FLOAT: u32 = 0x1406;
pub const GL_DOUBLE: u32 = 0x140A;
pub const GL_2_BYTES: u32 = 0x1407;
pub const GL_3_BYTES: u32 = 0x1408;
pub const GL_4_BYTES: u32 = 0x1409;

// Pixel formats.
pub const GL_COLOR_INDEX: u32 = 0x1900;
pub const GL_BITMAP: u32 = 0x1A00;
pub const GL_STENCIL_INDEX: u32 = 0x1901;
pub const GL_DEPTH_COMPONENT: u32 = 0x1902;
pub const GL_RED: u32 = 0x1903;
pub const GL_GREEN: u32 = 0x1904;
pub const GL_BLUE: u32 = 0x1905;
pub const GL_ALPHA: u32 = 0x1906;
pub const GL_RGB: u32 = 0x1907;
pub const GL_RGBA: u32 = 0x1908;
pub const GL_LUMINANCE: u32 = 0x1909;
pub const GL_LUMINANCE_ALPHA: u32 = 0x190A;
pub const GL_BGR_EXT: u32 = 0x80E0;
pub const GL_BGRA_EXT: u32 = 0x80E1;
pub const GL_INTENSITY: u32 = 0x8049;
pub const GL_UNSIGNED_SHORT_4_4_4_4: u32 = 0x8033;
pub const GL_UNSIGNED_SHORT_5_5_5_1: u32 = 0x8034;
pub const GL_UNSIGNED_SHORT_5_6_5: u32 = 0x8363;

// Texturing.
pub const GL_TEXTURE_ENV: u32 = 0x2300;
pub const GL_TEXTURE_ENV_MODE: u32 = 0x2200;
pub const GL_TEXTURE_ENV_COLOR: u32 = 0x2201;
pub const GL_MODULATE: u32 = 0x2100;
pub const GL_DECAL: u32 = 0x2101;
pub const GL_ADD: u32 = 0x0104;
pub const GL_TEXTURE_MAG_FILTER: u32 = 0x2800;
pub const GL_TEXTURE_MIN_FILTER: u32 = 0x2801;
pub const GL_TEXTURE_WRAP_S: u32 = 0x2802;
pub const GL_TEXTURE_WRAP_T: u32 = 0x2803;
pub const GL_TEXTURE_BORDER_COLOR: u32 = 0x1004;
pub const GL_TEXTURE_PRIORITY: u32 = 0x8066;
pub const GL_NEAREST: u32 = 0x2600;
pub const GL_LINEAR: u32 = 0x2601;
pub const GL_NEAREST_MIPMAP_NEAREST: u32 = 0x2700;
pub const GL_LINEAR_MIPMAP_NEAREST: u32 = 0x2701;
pub const GL_NEAREST_MIPMAP_LINEAR: u32 = 0x2702;
pub const GL_LINEAR_MIPMAP_LINEAR: u32 = 0x2703;
pub const GL_CLAMP: u32 = 0x2900;
pub const GL_REPEAT: u32 = 0x2901;
pub const GL_CLAMP_TO_EDGE: u32 = 0x812F;
pub const GL_TEXTURE_WIDTH: u32 = 0x1000;
pub const GL_TEXTURE_HEIGHT: u32 = 0x1001;
pub const GL_TEXTURE_INTERNAL_FORMAT: u32 = 0x1003;

// Fog.
pub const GL_FOG_INDEX: u32 = 0x0B61;
pub const GL_FOG_DENSITY: u32 = 0x0B62;
pub const GL_FOG_START: u32 = 0x0B63;
pub const GL_FOG_END: u32 = 0x0B64;
pub const GL_FOG_MODE: u32 = 0x0B65;
pub const GL_FOG_COLOR: u32 = 0x0B66;
pub const GL_EXP: u32 = 0x0800;
pub const GL_EXP2: u32 = 0x0801;

// Pixel storage.
pub const GL_UNPACK_SWAP_BYTES: u32 = 0x0CF0;
pub const GL_UNPACK_LSB_FIRST: u32 = 0x0CF1;
pub const GL_UNPACK_ROW_LENGTH: u32 = 0x0CF2;
pub const GL_UNPACK_SKIP_ROWS: u32 = 0x0CF3;
pub const GL_UNPACK_SKIP_PIXELS: u32 = 0x0CF4;
pub const GL_UNPACK_ALIGNMENT: u32 = 0x0CF5;
pub const GL_PACK_SWAP_BYTES: u32 = 0x0D00;
pub const GL_PACK_LSB_FIRST: u32 = 0x0D01;
pub const GL_PACK_ROW_LENGTH: u32 = 0x0D02;
pub const GL_PACK_SKIP_ROWS: u32 = 0x0D03;
pub const GL_PACK_SKIP_PIXELS: u32 = 0x0D04;
pub const GL_PACK_ALIGNMENT: u32 = 0x0D05;

// Queries (glGet).
pub const GL_CURRENT_COLOR: u32 = 0x0B00;
pub const GL_CURRENT_NORMAL: u32 = 0x0B02;
pub const GL_CURRENT_TEXTURE_COORDS: u32 = 0x0B03;
pub const GL_POINT_SIZE: u32 = 0x0B11;
pub const GL_LINE_WIDTH: u32 = 0x0B21;
pub const GL_CULL_FACE_MODE: u32 = 0x0B45;
pub const GL_FRONT_FACE: u32 = 0x0B46;
pub const GL_SHADE_MODEL: u32 = 0x0B54;
pub const GL_DEPTH_RANGE: u32 = 0x0B70;
pub const GL_DEPTH_WRITEMASK: u32 = 0x0B72;
pub const GL_DEPTH_CLEAR_VALUE: u32 = 0x0B73;
pub const GL_DEPTH_FUNC: u32 = 0x0B74;
pub const GL_STENCIL_CLEAR_VALUE: u32 = 0x0B91;
pub const GL_STENCIL_FUNC: u32 = 0x0B92;
pub const GL_STENCIL_VALUE_MASK: u32 = 0x0B93;
pub const GL_STENCIL_FAIL: u32 = 0x0B94;
pub const GL_STENCIL_PASS_DEPTH_FAIL: u32 = 0x0B95;
pub const GL_STENCIL_PASS_DEPTH_PASS: u32 = 0x0B96;
pub const GL_STENCIL_REF: u32 = 0x0B97;
pub const GL_STENCIL_WRITEMASK: u32 = 0x0B98;
pub const GL_MATRIX_MODE: u32 = 0x0BA0;
pub const GL_VIEWPORT: u32 = 0x0BA2;
pub const GL_MODELVIEW_STACK_DEPTH: u32 = 0x0BA3;
pub const GL_PROJECTION_STACK_DEPTH: u32 = 0x0BA4;
pub const GL_TEXTURE_STACK_DEPTH: u32 = 0x0BA5;
pub const GL_MODELVIEW_MATRIX: u32 = 0x0BA6;
pub const GL_PROJECTION_MATRIX: u32 = 0x0BA7;
pub const GL_TEXTURE_MATRIX: u32 = 0x0BA8;
pub const GL_ALPHA_TEST_FUNC: u32 = 0x0BC1;
pub const GL_ALPHA_TEST_REF: u32 = 0x0BC2;
pub const GL_BLEND_DST: u32 = 0x0BE0;
pub const GL_BLEND_SRC: u32 = 0x0BE1;
pub const GL_SCISSOR_BOX: u32 = 0x0C10;
pub const GL_COLOR_CLEAR_VALUE: u32 = 0x0C22;
pub const GL_COLOR_WRITEMASK: u32 = 0x0C23;
pub const GL_DOUBLEBUFFER: u32 = 0x0C32;
pub const GL_DRAW_BUFFER: u32 = 0x0C01;
pub const GL_READ_BUFFER: u32 = 0x0C02;
pub const GL_MAX_LIST_NESTING: u32 = 0x0B31;
pub const GL_MAX_LIGHTS: u32 = 0x0D31;
pub const GL_MAX_CLIP_PLANES: u32 = 0x0D32;
pub const GL_MAX_TEXTURE_SIZE: u32 = 0x0D33;
pub const GL_MAX_MODELVIEW_STACK_DEPTH: u32 = 0x0D36;
pub const GL_MAX_PROJECTION_STACK_DEPTH: u32 = 0x0D38;
pub const GL_MAX_TEXTURE_STACK_DEPTH: u32 = 0x0D39;
pub const GL_MAX_VIEWPORT_DIMS: u32 = 0x0D3A;
pub const GL_SUBPIXEL_BITS: u32 = 0x0D50;
pub const GL_RED_BITS: u32 = 0x0D52;
pub const GL_GREEN_BITS: u32 = 0x0D53;
pub const GL_BLUE_BITS: u32 = 0x0D54;
pub const GL_ALPHA_BITS: u32 = 0x0D55;
pub const GL_DEPTH_BITS: u32 = 0x0D56;
pub const GL_STENCIL_BITS: u32 = 0x0D57;
pub const GL_TEXTURE_BINDING_2D: u32 = 0x8069;
pub const GL_POLYGON_OFFSET_UNITS: u32 = 0x2A00;
pub const GL_POLYGON_OFFSET_FACTOR: u32 = 0x8038;
pub const GL_LIST_BASE: u32 = 0x0B32;
pub const GL_LIST_INDEX: u32 = 0x0B33;
pub const GL_LIST_MODE: u32 = 0x0B30;

// Hints.
pub const GL_PERSPECTIVE_CORRECTION_HINT: u32 = 0x0C50;
pub const GL_POINT_SMOOTH_HINT: u32 = 0x0C51;
pub const GL_LINE_SMOOTH_HINT: u32 = 0x0C52;
pub const GL_POLYGON_SMOOTH_HINT: u32 = 0x0C53;
pub const GL_FOG_HINT: u32 = 0x0C54;
pub const GL_DONT_CARE: u32 = 0x1100;
pub const GL_FASTEST: u32 = 0x1101;
pub const GL_NICEST: u32 = 0x1102;

// Display lists.
pub const GL_COMPILE: u32 = 0x1300;
pub const GL_COMPILE_AND_EXECUTE: u32 = 0x1301;

// Buffers.
pub const GL_NONE: u32 = 0;
pub const GL_FRONT_LEFT: u32 = 0x0400;
pub const GL_BACK_LEFT: u32 = 0x0402;

// GL_ARB_multitexture.
pub const GL_TEXTURE0_ARB: u32 = 0x84C0;
pub const GL_ACTIVE_TEXTURE_ARB: u32 = 0x84E0;
pub const GL_CLIENT_ACTIVE_TEXTURE_ARB: u32 = 0x84E1;
pub const GL_MAX_TEXTURE_UNITS_ARB: u32 = 0x84E2;

// Lighting.
pub const GL_AMBIENT: u32 = 0x1200;
pub const GL_DIFFUSE: u32 = 0x1201;
pub const GL_SPECULAR: u32 = 0x1202;
pub const GL_POSITION: u32 = 0x1203;
pub const GL_SPOT_DIRECTION: u32 = 0x1204;
pub const GL_SPOT_EXPONENT: u32 = 0x1205;
pub const GL_SPOT_CUTOFF: u32 = 0x1206;
pub const GL_CONSTANT_ATTENUATION: u32 = 0x1207;
pub const GL_LINEAR_ATTENUATION: u32 = 0x1208;
pub const GL_QUADRATIC_ATTENUATION: u32 = 0x1209;
pub const GL_EMISSION: u32 = 0x1600;
pub const GL_SHININESS: u32 = 0x1601;
pub const GL_AMBIENT_AND_DIFFUSE: u32 = 0x1602;
pub const GL_COLOR_INDEXES: u32 = 0x1603;
pub const GL_LIGHT_MODEL_LOCAL_VIEWER: u32 = 0x0B51;
pub const GL_LIGHT_MODEL_TWO_SIDE: u32 = 0x0B52;
pub const GL_LIGHT_MODEL_AMBIENT: u32 = 0x0B53;
pub const GL_COLOR_MATERIAL_FACE: u32 = 0x0B55;
pub const GL_COLOR_MATERIAL_PARAMETER: u32 = 0x0B56;
