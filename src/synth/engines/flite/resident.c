/*
 * Voxsmith's glue around Debian's flite 2.2, compiled to wasm32-wasi by scripts/build-flite-wasm.sh as a
 * library that stays resident in its thread (library.ts): voices are registered once, and every sentence is
 * one call that hands its audio to the host through the imported `chunk` function while it renders, using
 * flite's own audio streaming (the `streaming_info` feature its CG and LPC resynthesis honour).
 *
 * A sentence is rendered as `flite -t TEXT` renders it: the whole text one utterance (flite_synth_text), so
 * the audio and the segment times are those of the native program.
 */
#include <stdlib.h>
#include "flite.h"

cst_voice *register_cmu_us_slt(const char *voxdir);
cst_voice *register_cmu_us_awb(const char *voxdir);
cst_voice *register_cmu_us_rms(const char *voxdir);
cst_voice *register_cmu_us_kal16(const char *voxdir);
cst_voice *register_cmu_us_kal(const char *voxdir);

#define VX_EXPORT(name) __attribute__((export_name(name)))

/*
 * Called for each piece of audio as it exists: `count` 16-bit samples at `samples`, valid only during the
 * call. flags: VX_FIRST on an utterance's first piece (its segments are timed by then: vx_segments), VX_LAST
 * on its last. A non-zero return stops the rendering.
 */
__attribute__((import_module("voxsmith"), import_name("chunk"))) int vx_host_chunk(const short *samples, int count,
                                                                                   int rate, int flags);

#define VX_FIRST 1
#define VX_LAST 2

struct vx_voice
{
    const char *name;
    cst_voice *(*reg)(const char *voxdir);
    cst_voice *voice;
    /* The voice's own settings, put back when a call does not set them. */
    int has_stretch, has_f0;
    float stretch, f0;
};

static struct vx_voice voices[] = {
    {"slt", register_cmu_us_slt},     {"awb", register_cmu_us_awb}, {"rms", register_cmu_us_rms},
    {"kal16", register_cmu_us_kal16}, {"kal", register_cmu_us_kal},
};
#define VX_VOICES ((int)(sizeof(voices) / sizeof(voices[0])))

static cst_audio_streaming_info *streaming;
/* The utterance being rendered, for vx_segments from inside the host's chunk function. */
static const cst_utterance *current;
/* Set when the host asked to stop: the call then reports it instead of a length. */
static int stopped;

/* A growable text buffer for the strings handed to the host (segments, phones). */
static char *text_buf;
static int text_len, text_cap;

static void text_reset(void) { text_len = 0; }

static void text_add(const char *s)
{
    int n = cst_strlen(s);
    if (text_len + n + 1 > text_cap)
    {
        int cap = text_cap ? text_cap : 1024;
        char *grown;
        while (cap < text_len + n + 1) cap *= 2;
        grown = cst_alloc(char, cap);
        if (text_buf) memmove(grown, text_buf, text_len);
        cst_free(text_buf);
        text_buf = grown;
        text_cap = cap;
    }
    memmove(text_buf + text_len, s, n);
    text_len += n;
    text_buf[text_len] = '\0';
}

static int on_audio(const cst_wave *w, int start, int size, int last, cst_audio_streaming_info *asi)
{
    int flags = (start == 0 ? VX_FIRST : 0) | (last ? VX_LAST : 0);
    current = asi->utt;
    if (vx_host_chunk(w->samples + start, size, w->sample_rate, flags) != 0)
    {
        stopped = 1;
        return CST_AUDIO_STREAM_STOP;
    }
    return CST_AUDIO_STREAM_CONT;
}

/* Registers every voice and turns on streaming; `piece` is the fewest samples of a streamed piece. */
VX_EXPORT("vx_init") int vx_init(int piece)
{
    int i;
    flite_init();
    streaming = new_audio_streaming_info();
    streaming->min_buffsize = piece;
    streaming->asc = on_audio;
    for (i = 0; i < VX_VOICES; i++)
    {
        struct vx_voice *v = &voices[i];
        v->voice = v->reg(NULL);
        if (!v->voice) return -1;
        v->has_stretch = feat_present(v->voice->features, "duration_stretch");
        v->stretch = get_param_float(v->voice->features, "duration_stretch", 1.0);
        v->has_f0 = feat_present(v->voice->features, "int_f0_target_mean");
        v->f0 = get_param_float(v->voice->features, "int_f0_target_mean", 0.0);
        /* The voice holds the value; the value holds the info, which lives as long as the thread. */
        feat_set(v->voice->features, "streaming_info", audio_streaming_info_val(streaming));
    }
    return VX_VOICES;
}

/* The index of the voice named `name`, or -1. */
VX_EXPORT("vx_voice") int vx_voice(const char *name)
{
    int i;
    for (i = 0; i < VX_VOICES; i++)
        if (cst_streq(voices[i].name, name)) return i;
    return -1;
}

VX_EXPORT("vx_alloc") void *vx_alloc(int size) { return cst_safe_alloc(size); }
VX_EXPORT("vx_free") void vx_free(void *p) { cst_free(p); }

static void set_or_restore(cst_features *f, const char *name, float value, int has_own, float own)
{
    if (value > 0)
        feat_set_float(f, name, value);
    else if (has_own)
        feat_set_float(f, name, own);
    else
        feat_remove(f, name);
}

/*
 * Renders `text` with voice `index`, handing the audio to the host as it goes. stretch and f0 set
 * duration_stretch and int_f0_target_mean for this call (0: the voice's own). Returns the number of samples,
 * or -1 when the host stopped it, -2 for an unknown voice, -3 when flite failed.
 */
VX_EXPORT("vx_speak") int vx_speak(int index, const char *text, float stretch, float f0)
{
    struct vx_voice *v;
    cst_utterance *u;
    int samples;
    if (index < 0 || index >= VX_VOICES) return -2;
    v = &voices[index];
    set_or_restore(v->voice->features, "duration_stretch", stretch, v->has_stretch, v->stretch);
    set_or_restore(v->voice->features, "int_f0_target_mean", f0, v->has_f0, v->f0);
    stopped = 0;
    current = NULL;
    /* The vocoders' noise comes from rand(): seeded as a new process seeds it, so that a text sounds the
       same whatever was rendered before it. */
    srand(1);
    u = flite_synth_text(text, v->voice);
    current = NULL;
    if (!u) return -3;
    samples = utt_wave(u) ? utt_wave(u)->num_samples : 0;
    delete_utterance(u);
    return stopped ? -1 : samples;
}

/*
 * The current utterance's segments with their end times, as `flite -psdur` prints them ("pau:0.164
 * hh:0.255 ..."); only valid inside the host's chunk function. The text lives until the next call.
 */
VX_EXPORT("vx_segments") const char *vx_segments(void)
{
    const cst_item *s;
    char one[64];
    text_reset();
    text_add("");
    if (!current) return text_buf;
    for (s = relation_head(utt_relation(current, "Segment")); s; s = item_next(s))
    {
        cst_sprintf(one, "%.4f ", item_feat_float(s, "end"));
        text_add(item_feat_string(s, "name"));
        text_add(":");
        text_add(one);
    }
    return text_buf;
}

/* What flite does to text before it times and renders it: the phones come out of the post-lexical rules. */
static const cst_synth_module to_phones[] = {
    {"tokenizer_func", default_tokenization},
    {"textanalysis_func", default_textanalysis},
    {"pos_tagger_func", default_pos_tagger},
    {"phrasing_func", default_phrasing},
    {"lexical_insertion_func", default_lexical_insertion},
    {"pause_insertion_func", default_pause_insertion},
    {"intonation_func", cart_intonation},
    {"postlex_func", NULL},
    {NULL, NULL},
};

/*
 * The phones of `text` as voice `index` says it, as `flite -ps` prints them ("pau hh ax l ow pau"), without
 * rendering any audio. The text lives until the next call; NULL for an unknown voice or a failure.
 */
VX_EXPORT("vx_phones") const char *vx_phones(int index, const char *text)
{
    cst_utterance *u;
    const cst_item *s;
    const cst_synth_module *m;
    if (index < 0 || index >= VX_VOICES) return NULL;
    u = new_utterance();
    utt_set_input_text(u, text);
    utt_init(u, voices[index].voice);
    for (m = to_phones; m->hookname && u; m++) u = apply_synth_module(u, m);
    if (!u) return NULL;
    text_reset();
    text_add("");
    for (s = relation_head(utt_relation(u, "Segment")); s; s = item_next(s))
    {
        text_add(item_feat_string(s, "name"));
        text_add(" ");
    }
    delete_utterance(u);
    return text_buf;
}

/*
 * flite looks features up by name (feat_val and the feature functions its CART trees call), comparing names
 * with strcmp: 11 % of a long reading's engine time went to wasi-libc's strcmp, a call into an archive the
 * link-time optimizer cannot see into. Defined here (the link takes this one before libc's), the compiler
 * inlines it into those lookups: 8-10 % less CPU per second of audio, the audio bit for bit the same
 * (scripts/build-flite-wasm.sh compiles with -flto for this).
 */
int strcmp(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b)
    {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}
