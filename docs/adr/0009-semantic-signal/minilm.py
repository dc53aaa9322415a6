import numpy as np, json, math
from safetensors.numpy import load_file
from tokenizers import Tokenizer
D='/tmp/s3/pkgs/mini/all_minilm_l6_v2/model/'
W=load_file(D+'model.safetensors')
pre='' if 'embeddings.word_embeddings.weight' in W else 'bert.'
tok=Tokenizer.from_file(D+'tokenizer.json'); tok.enable_truncation(128); tok.no_padding()
def g(k): return W[pre+k].astype(np.float32)
def ln(x,w,b,eps=1e-12):
    m=x.mean(-1,keepdims=True); v=((x-m)**2).mean(-1,keepdims=True); return (x-m)/np.sqrt(v+eps)*w+b
def gelu(x): return 0.5*x*(1+np.vectorize(math.erf)(x/math.sqrt(2))) if False else 0.5*x*(1+erf(x/np.sqrt(2)))
try:
    from scipy.special import erf
except ImportError:
    erf=np.vectorize(math.erf)
def encode_one(text):
    e=tok.encode(text); ids=np.array(e.ids); n=len(ids)
    x=g('embeddings.word_embeddings.weight')[ids]+g('embeddings.position_embeddings.weight')[:n]+g('embeddings.token_type_embeddings.weight')[0]
    x=ln(x,g('embeddings.LayerNorm.weight'),g('embeddings.LayerNorm.bias'))
    H=12; dh=32
    for l in range(6):
        p=f'encoder.layer.{l}.'
        q=x@g(p+'attention.self.query.weight').T+g(p+'attention.self.query.bias')
        k=x@g(p+'attention.self.key.weight').T+g(p+'attention.self.key.bias')
        v=x@g(p+'attention.self.value.weight').T+g(p+'attention.self.value.bias')
        q=q.reshape(n,H,dh).transpose(1,0,2); k=k.reshape(n,H,dh).transpose(1,0,2); v=v.reshape(n,H,dh).transpose(1,0,2)
        a=q@k.transpose(0,2,1)/math.sqrt(dh); a=np.exp(a-a.max(-1,keepdims=True)); a/=a.sum(-1,keepdims=True)
        o=(a@v).transpose(1,0,2).reshape(n,384)
        o=o@g(p+'attention.output.dense.weight').T+g(p+'attention.output.dense.bias')
        x=ln(o+x,g(p+'attention.output.LayerNorm.weight'),g(p+'attention.output.LayerNorm.bias'))
        h=x@g(p+'intermediate.dense.weight').T+g(p+'intermediate.dense.bias'); h=gelu(h)
        h=h@g(p+'output.dense.weight').T+g(p+'output.dense.bias')
        x=ln(h+x,g(p+'output.LayerNorm.weight'),g(p+'output.LayerNorm.bias'))
    m=x.mean(0); return m/np.linalg.norm(m)
if __name__=='__main__':
    a=encode_one('cancel the meeting'); b=encode_one('kill the meeting link'); c=encode_one('mute all participants'); d=encode_one('silence everyone on the call')
    print(a@b, a@c, c@d, b@d)
