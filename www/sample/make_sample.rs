//! Writes the dashboard's sample collections with atlas-wasm's own writer.
//!
//! `cargo run --release --features writer --example make_sample -- OUT_DIR`
//!
//! - `OUT_DIR/ocean`: 365 daily global SST grids (float32 [1, 90, 180], NaN
//!   over land, a `time` coordinate), 300 Argo-like profiles of varying
//!   length (strings, timestamps, NaN gaps), one 4-D monthly model field
//!   (float32 [12, 10, 90, 180]); 3 profiles hidden by `deleted.mask`.
//! - `OUT_DIR/stations`: 12,000 small station time series, for the
//!   catalogue's many-rows case.
//! - `OUT_DIR/argo`: 160 profiles laid out as atlas-python writes Argo
//!   NetCDF files (`N_PROF` = 1, so `TEMP` is `[1, N_LEVELS]`; `PRES` is a
//!   data variable, not a coordinate; 99999 fills; `JULD_LOCATION` NaT for
//!   every fifth profile), and one 720 x 1440 bathymetry grid, wider than
//!   the dashboard's 1024-cell window.
//!
//! Attributes follow what atlas-python writes from NetCDF files:
//! `_pyatlas_coords` is a JSON list of the coordinate arrays, and list or
//! dict values are JSON strings with a `json:` prefix. Values are
//! deterministic (a fixed-seed generator), so tests can assert on them.

use std::f64::consts::PI;
use std::path::Path;

use atlas_wasm::write::{delete_datasets, AtlasWriter, Codec, DatasetWriter, WriterConfig};
use atlas_wasm::{Attr, FillValue, TimestampNs};

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

const NS_PER_DAY: i64 = 86_400_000_000_000;
/// 2024-01-01T00:00:00Z in nanoseconds since the epoch.
const JAN_1_2024: i64 = 1_704_067_200 * 1_000_000_000;
const NLAT: usize = 90;
const NLON: usize = 180;

/// Blocks of about 16 KiB, the size of one chunk of a daily grid: a plot
/// reads the few blocks its window needs, not the writer's default 8 MiB.
const CONFIG: WriterConfig = WriterConfig {
    codec: Codec::Zstd,
    block_target_size: 16 * 1024,
};

/// A small deterministic generator (xorshift64*), so no crate is needed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-12), self.next());
        (-2.0 * u.ln()).sqrt() * (2.0 * PI * v).cos()
    }
}

/// Coarse continent outlines, (longitude, latitude) in degrees.
#[rustfmt::skip]
const CONTINENTS: &[&[(f64, f64)]] = &[
    // North America
    &[(-168., 66.), (-162., 70.), (-140., 70.), (-120., 72.), (-95., 72.), (-80., 68.), (-62., 60.),
      (-55., 52.), (-66., 44.), (-76., 35.), (-81., 25.), (-90., 29.), (-97., 26.), (-97., 20.),
      (-88., 15.), (-80., 8.), (-85., 10.), (-105., 20.), (-112., 30.), (-118., 34.), (-124., 40.),
      (-124., 48.), (-135., 58.), (-150., 60.), (-165., 60.)],
    // Greenland
    &[(-55., 60.), (-43., 60.), (-20., 70.), (-18., 80.), (-40., 83.), (-65., 80.), (-72., 77.), (-58., 70.)],
    // South America
    &[(-80., 8.), (-72., 12.), (-60., 8.), (-50., 0.), (-35., -5.), (-38., -13.), (-40., -22.),
      (-48., -28.), (-58., -38.), (-65., -42.), (-68., -52.), (-75., -52.), (-73., -40.), (-71., -30.),
      (-70., -18.), (-76., -14.), (-81., -5.), (-78., 2.)],
    // Africa
    &[(-17., 15.), (-17., 21.), (-13., 28.), (-6., 36.), (10., 37.), (20., 32.), (32., 31.), (34., 28.),
      (43., 12.), (51., 12.), (40., -2.), (40., -15.), (35., -25.), (27., -34.), (19., -35.), (15., -27.),
      (12., -17.), (14., -5.), (9., 4.), (4., 6.), (-8., 4.), (-14., 10.)],
    // Eurasia, round the Mediterranean's northern shore
    &[(-10., 36.), (-9., 43.), (-2., 44.), (-5., 48.), (2., 51.), (8., 54.), (10., 58.), (5., 62.),
      (15., 68.), (25., 71.), (40., 68.), (60., 70.), (80., 73.), (100., 78.), (130., 72.), (160., 70.),
      (180., 69.), (180., 65.), (160., 60.), (142., 50.), (135., 43.), (128., 35.), (121., 30.),
      (121., 23.), (110., 20.), (106., 10.), (100., 13.), (100., 3.), (94., 17.), (90., 22.), (80., 15.),
      (77., 8.), (72., 20.), (67., 25.), (57., 25.), (52., 28.), (48., 30.), (50., 25.), (57., 22.),
      (53., 17.), (43., 13.), (35., 28.), (32., 31.), (35., 36.), (27., 37.), (23., 40.), (18., 40.),
      (13., 45.), (12., 44.), (16., 38.), (10., 44.), (3., 43.), (-2., 37.)],
    // Great Britain
    &[(-5., 50.), (1., 51.), (-2., 56.), (-5., 58.), (-6., 55.)],
    // Borneo, Sumatra, New Guinea, Madagascar, Japan
    &[(109., 1.), (117., 7.), (119., 1.), (116., -4.), (110., -3.)],
    &[(95., 5.), (98., 4.), (106., -6.), (103., -5.)],
    &[(132., -1.), (141., -3.), (150., -10.), (141., -9.)],
    &[(44., -25.), (47., -25.), (50., -15.), (49., -12.), (44., -17.)],
    &[(130., 31.), (135., 34.), (141., 36.), (142., 44.), (139., 40.), (132., 35.)],
    // Australia
    &[(114., -22.), (114., -34.), (118., -35.), (130., -32.), (138., -35.), (146., -39.), (150., -37.),
      (153., -28.), (153., -25.), (146., -19.), (142., -11.), (136., -12.), (130., -12.), (122., -17.)],
];

fn inside(polygon: &[(f64, f64)], lon: f64, lat: f64) -> bool {
    let mut hit = false;
    let mut j = polygon.len() - 1;
    for i in 0..polygon.len() {
        let ((xi, yi), (xj, yj)) = (polygon[i], polygon[j]);
        if (yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi {
            hit = !hit;
        }
        j = i;
    }
    hit
}

fn is_land(lon: f64, lat: f64) -> bool {
    lat < -72.0 + 4.0 * (lon.to_radians() * 3.0).sin()
        || CONTINENTS.iter().any(|p| inside(p, lon, lat))
}

fn lats() -> Vec<f32> {
    (0..NLAT).map(|i| -89.0 + 2.0 * i as f32).collect()
}

fn lons() -> Vec<f32> {
    (0..NLON).map(|i| -179.0 + 2.0 * i as f32).collect()
}

/// Sea temperature (degC) at a place, a day of the year and a depth (m).
fn sea_temperature(lon: f64, lat: f64, day: f64, depth: f64) -> f64 {
    let phi = lat.to_radians();
    let season = (2.0 * PI * (day - 80.0) / 365.0).sin();
    let surface = 29.0 * phi.cos().powf(1.6) - 1.8
        + 3.5 * season * phi.sin().signum() * phi.sin().abs().sqrt()
        + 1.2 * (lon.to_radians() * 2.0 + day / 40.0).sin() * (phi * 3.0).cos()
        + 0.8 * (lon.to_radians() * 5.0 - lat.to_radians() * 4.0 + day / 15.0).sin();
    let surface = surface.max(-1.8);
    // Warm water thins with depth towards ~2 degC.
    2.0 + (surface - 2.0) * (-depth / 700.0).exp()
}

fn coords(ds: &mut DatasetWriter, names: &[&str]) {
    let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    ds.set_attribute(
        "_pyatlas_coords",
        Attr::String(format!("[{}]", list.join(", "))),
    );
}

fn lat_lon(ds: &mut DatasetWriter) -> Res {
    ds.define_array::<f32>(
        "lat",
        vec!["lat".into()],
        &[NLAT as u64],
        None,
        Some(FillValue::Float(f64::NAN)),
    )?;
    ds.write_array("lat", &[0], &[NLAT as u64], &lats())?;
    ds.set_array_attribute("lat", "units", Attr::String("degrees_north".into()))?;
    ds.set_array_attribute("lat", "standard_name", Attr::String("latitude".into()))?;
    ds.define_array::<f32>(
        "lon",
        vec!["lon".into()],
        &[NLON as u64],
        None,
        Some(FillValue::Float(f64::NAN)),
    )?;
    ds.write_array("lon", &[0], &[NLON as u64], &lons())?;
    ds.set_array_attribute("lon", "units", Attr::String("degrees_east".into()))?;
    ds.set_array_attribute("lon", "standard_name", Attr::String("longitude".into()))?;
    Ok(())
}

fn iso_date(ns: i64) -> String {
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = ns.div_euclid(NS_PER_DAY) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn daily_grid(writer: &AtlasWriter, land: &[bool], day: usize, rng: &mut Rng) -> Res {
    let time = JAN_1_2024 + day as i64 * NS_PER_DAY;
    let date = iso_date(time);
    let mut ds = writer.add_dataset(&format!("sst_{date}"))?;
    ds.define_array::<TimestampNs>("time", vec!["time".into()], &[1], None, None)?;
    ds.write_array("time", &[0], &[1], &[TimestampNs(time)])?;
    ds.set_array_attribute("time", "standard_name", Attr::String("time".into()))?;
    lat_lon(&mut ds)?;

    let (lat, lon) = (lats(), lons());
    let mut sst = vec![f32::NAN; NLAT * NLON];
    let mut ice = vec![f32::NAN; NLAT * NLON];
    for (i, &la) in lat.iter().enumerate() {
        for (j, &lo) in lon.iter().enumerate() {
            let k = i * NLON + j;
            if land[k] {
                continue;
            }
            let t = sea_temperature(lo as f64, la as f64, day as f64, 0.0) + 0.15 * rng.normal();
            sst[k] = t as f32;
            ice[k] = ((-1.0 - t) / 0.8).clamp(0.0, 1.0) as f32;
        }
    }
    let dims = vec!["time".to_string(), "lat".into(), "lon".into()];
    let shape = [1, NLAT as u64, NLON as u64];
    let chunks = [1, 45, 90];
    ds.define_array::<f32>(
        "sst",
        dims.clone(),
        &shape,
        Some(&chunks),
        Some(FillValue::Float(f64::NAN)),
    )?;
    ds.write_array("sst", &[0, 0, 0], &shape, &sst)?;
    ds.set_array_attribute("sst", "units", Attr::String("degC".into()))?;
    ds.set_array_attribute(
        "sst",
        "long_name",
        Attr::String("sea surface temperature".into()),
    )?;
    ds.set_array_attribute(
        "sst",
        "valid_range",
        Attr::String("json:[-2.0, 35.0]".into()),
    )?;
    ds.define_array::<f32>(
        "sea_ice_fraction",
        dims,
        &shape,
        Some(&chunks),
        Some(FillValue::Float(f64::NAN)),
    )?;
    ds.write_array("sea_ice_fraction", &[0, 0, 0], &shape, &ice)?;
    ds.set_array_attribute("sea_ice_fraction", "units", Attr::String("1".into()))?;

    ds.set_attribute(
        "title",
        Attr::String("Synthetic daily sea surface temperature analysis".into()),
    );
    ds.set_attribute("date", Attr::String(date.clone()));
    ds.set_attribute("month", Attr::Int32(date[5..7].parse()?));
    ds.set_attribute("day_of_year", Attr::Int32(day as i32 + 1));
    ds.set_attribute("Conventions", Attr::String("CF-1.8".into()));
    ds.set_attribute("processing_level", Attr::String("L4".into()));
    ds.set_attribute(
        "geospatial_bounds",
        Attr::String("json:[-180.0, -90.0, 180.0, 90.0]".into()),
    );
    coords(&mut ds, &["time", "lat", "lon"]);
    ds.finish()?;
    Ok(())
}

const FLOAT_TYPES: &[&str] = &["APEX", "ARVOR", "NAVIS_A", "SOLO_II"];

fn profile(writer: &AtlasWriter, float: usize, cycle: usize, rng: &mut Rng) -> Res {
    let wmo = 5_906_100 + float * 17;
    let day = (cycle * 10 + float * 3) % 365;
    let time =
        JAN_1_2024 + day as i64 * NS_PER_DAY + (rng.range(0.0, 86_400.0) as i64) * 1_000_000_000;
    // Each float drifts near its own starting point, at sea.
    let mut anchor = Rng(0x9E37_79B9 + float as u64 * 7919);
    let (mut lat0, mut lon0);
    loop {
        lat0 = anchor.range(-60.0, 60.0);
        lon0 = anchor.range(-180.0, 180.0);
        if !is_land(lon0, lat0) {
            break;
        }
    }
    let lat = lat0 + cycle as f64 * 0.08 * (float as f64).sin();
    let lon = lon0 + cycle as f64 * 0.11 * (float as f64).cos();

    let levels = 40 + (rng.next() * 960.0) as usize;
    let bottom = [1000.0, 1500.0, 2000.0][float % 3];
    let mut pres = Vec::with_capacity(levels);
    let mut temp = Vec::with_capacity(levels);
    let mut psal = Vec::with_capacity(levels);
    let mut qc = Vec::with_capacity(levels);
    let mixed = rng.range(20.0, 120.0);
    for k in 0..levels {
        let p = 5.0 + (bottom - 5.0) * k as f64 / (levels - 1) as f64;
        let t = sea_temperature(lon, lat, day as f64, (p - mixed).max(0.0)) + 0.05 * rng.normal();
        let s = 34.2 + 0.9 * (-p / 500.0).exp() * (lat.to_radians().cos()) + 0.02 * rng.normal();
        let bad = rng.next() < 0.01;
        pres.push(p as f32);
        temp.push(if bad { f32::NAN } else { t as f32 });
        psal.push(s as f32);
        qc.push(
            if bad {
                "4"
            } else if rng.next() < 0.03 {
                "2"
            } else {
                "1"
            }
            .to_string(),
        );
    }

    let n = levels as u64;
    let mut ds = writer.add_dataset(&format!("argo_{wmo}_{cycle:03}"))?;
    let nan = || Some(FillValue::Float(f64::NAN));
    ds.define_array::<f32>("pres", vec!["pres".into()], &[n], None, nan())?;
    ds.write_array("pres", &[0], &[n], &pres)?;
    ds.set_array_attribute("pres", "units", Attr::String("dbar".into()))?;
    ds.set_array_attribute(
        "pres",
        "long_name",
        Attr::String("sea water pressure".into()),
    )?;
    ds.define_array::<f32>("temp", vec!["pres".into()], &[n], None, nan())?;
    ds.write_array("temp", &[0], &[n], &temp)?;
    ds.set_array_attribute("temp", "units", Attr::String("degC".into()))?;
    ds.set_array_attribute(
        "temp",
        "long_name",
        Attr::String("sea water temperature".into()),
    )?;
    ds.define_array::<f32>("psal", vec!["pres".into()], &[n], None, nan())?;
    ds.write_array("psal", &[0], &[n], &psal)?;
    ds.set_array_attribute("psal", "units", Attr::String("psu".into()))?;
    ds.define_array::<String>(
        "temp_qc",
        vec!["pres".into()],
        &[n],
        None,
        Some(FillValue::String(String::new())),
    )?;
    ds.write_array("temp_qc", &[0], &[n], &qc)?;
    ds.set_array_attribute(
        "temp_qc",
        "flag_meanings",
        Attr::String("json:{\"1\": \"good\", \"2\": \"probably good\", \"4\": \"bad\"}".into()),
    )?;
    ds.define_array::<TimestampNs>("juld", vec![], &[], None, None)?;
    ds.write_array("juld", &[], &[], &[TimestampNs(time)])?;
    ds.define_array::<f64>("latitude", vec![], &[], None, None)?;
    ds.write_array("latitude", &[], &[], &[lat])?;
    ds.define_array::<f64>("longitude", vec![], &[], None, None)?;
    ds.write_array("longitude", &[], &[], &[lon])?;
    ds.define_array::<String>("platform_number", vec![], &[], None, None)?;
    ds.write_array("platform_number", &[], &[], &[wmo.to_string()])?;

    ds.set_attribute("title", Attr::String("Synthetic Argo float profile".into()));
    ds.set_attribute("platform_number", Attr::String(wmo.to_string()));
    ds.set_attribute("cycle_number", Attr::Int32(cycle as i32));
    ds.set_attribute(
        "float_type",
        Attr::String(FLOAT_TYPES[float % FLOAT_TYPES.len()].into()),
    );
    ds.set_attribute(
        "data_mode",
        Attr::String(if cycle < 10 { "D" } else { "R" }.into()),
    );
    ds.set_attribute("date", Attr::String(iso_date(time)));
    ds.set_attribute("month", Attr::Int32(iso_date(time)[5..7].parse()?));
    ds.set_attribute(
        "sensors",
        Attr::String("json:[\"CTD_PRES\", \"CTD_TEMP\", \"CTD_CNDC\"]".into()),
    );
    coords(&mut ds, &["pres", "juld", "latitude", "longitude"]);
    ds.finish()?;
    Ok(())
}

fn ocean_model(writer: &AtlasWriter, land: &[bool]) -> Res {
    const DEPTHS: [f32; 10] = [5., 25., 50., 100., 200., 300., 500., 750., 1000., 1500.];
    let mut ds = writer.add_dataset("ocean_model_2024_monthly")?;
    let times: Vec<TimestampNs> = (0..12)
        .map(|m| TimestampNs(JAN_1_2024 + (m * 30 + 15) * NS_PER_DAY))
        .collect();
    ds.define_array::<TimestampNs>("time", vec!["time".into()], &[12], None, None)?;
    ds.write_array("time", &[0], &[12], &times)?;
    ds.define_array::<f32>(
        "depth",
        vec!["depth".into()],
        &[10],
        None,
        Some(FillValue::Float(f64::NAN)),
    )?;
    ds.write_array("depth", &[0], &[10], &DEPTHS)?;
    ds.set_array_attribute("depth", "units", Attr::String("m".into()))?;
    ds.set_array_attribute("depth", "positive", Attr::String("down".into()))?;
    lat_lon(&mut ds)?;

    let shape = [12, 10, NLAT as u64, NLON as u64];
    ds.define_array::<f32>(
        "thetao",
        vec!["time".into(), "depth".into(), "lat".into(), "lon".into()],
        &shape,
        Some(&[1, 1, NLAT as u64, NLON as u64]),
        Some(FillValue::Float(f64::NAN)),
    )?;
    let (lat, lon) = (lats(), lons());
    let mut plane = vec![f32::NAN; NLAT * NLON];
    for m in 0..12 {
        for (d, &depth) in DEPTHS.iter().enumerate() {
            for (i, &la) in lat.iter().enumerate() {
                for (j, &lo) in lon.iter().enumerate() {
                    let k = i * NLON + j;
                    // Deeper levels lose the shelves: more cells count as land.
                    let shelf = depth > 200.0
                        && (is_land(lo as f64 + 4.0, la as f64)
                            || is_land(lo as f64 - 4.0, la as f64));
                    plane[k] = if land[k] || shelf {
                        f32::NAN
                    } else {
                        sea_temperature(lo as f64, la as f64, m as f64 * 30.0 + 15.0, depth as f64)
                            as f32
                    };
                }
            }
            ds.write_array(
                "thetao",
                &[m, d as u64, 0, 0],
                &[1, 1, NLAT as u64, NLON as u64],
                &plane,
            )?;
        }
    }
    ds.set_array_attribute("thetao", "units", Attr::String("degC".into()))?;
    ds.set_array_attribute(
        "thetao",
        "long_name",
        Attr::String("sea water potential temperature".into()),
    )?;
    ds.set_attribute(
        "title",
        Attr::String("Synthetic monthly ocean model output".into()),
    );
    ds.set_attribute("date", Attr::String("2024".into()));
    ds.set_attribute("Conventions", Attr::String("CF-1.8".into()));
    coords(&mut ds, &["time", "depth", "lat", "lon"]);
    ds.finish()?;
    Ok(())
}

fn ocean(dir: &Path) -> Res {
    let land: Vec<bool> = lats()
        .iter()
        .flat_map(|&la| {
            lons()
                .into_iter()
                .map(move |lo| is_land(lo as f64, la as f64))
        })
        .collect();
    let mut rng = Rng(0x5EED_0CEA_2024);
    let writer = AtlasWriter::create(dir, CONFIG)?;
    for day in 0..365 {
        daily_grid(&writer, &land, day, &mut rng)?;
    }
    for float in 0..20 {
        for cycle in 1..=15 {
            profile(&writer, float, cycle, &mut rng)?;
        }
    }
    ocean_model(&writer, &land)?;
    writer.finish()?;
    // Three profiles failed quality control: hidden, not rewritten.
    let bad = ["argo_5906100_004", "argo_5906117_009", "argo_5906134_013"];
    delete_datasets(dir, &bad, false)?;
    Ok(())
}

const COUNTRIES: &[&str] = &[
    "NO", "SE", "FI", "DE", "FR", "ES", "IT", "PL", "CZ", "AT", "CH", "NL",
];
const SYLLABLES: &[&str] = &[
    "ber", "lin", "dal", "vik", "ost", "mar", "sen", "hol", "ka", "ru", "na", "tor", "el", "an",
];

fn stations(dir: &Path) -> Res {
    let mut rng = Rng(0x57A7_1045);
    let writer = AtlasWriter::create(dir, CONFIG)?;
    let start = JAN_1_2024 + 180 * NS_PER_DAY;
    let hours: Vec<TimestampNs> = (0..24)
        .map(|h| TimestampNs(start + h * NS_PER_DAY / 24))
        .collect();
    for s in 0..12_000 {
        let mut ds = writer.add_dataset(&format!("station_{s:05}"))?;
        let lat = rng.range(36.0, 70.0);
        let lon = rng.range(-9.0, 30.0);
        let elevation = (rng.next().powi(3) * 2500.0).round();
        let base = 28.0 - 0.45 * (lat - 36.0) - elevation / 160.0;
        let t2m: Vec<f32> = (0..24)
            .map(|h| {
                (base + 5.0 * (2.0 * PI * (h as f64 - 9.0) / 24.0).sin() + 0.6 * rng.normal())
                    as f32
            })
            .collect();
        ds.define_array::<TimestampNs>("time", vec!["time".into()], &[24], None, None)?;
        ds.write_array("time", &[0], &[24], &hours)?;
        ds.define_array::<f32>(
            "t2m",
            vec!["time".into()],
            &[24],
            None,
            Some(FillValue::Float(f64::NAN)),
        )?;
        ds.write_array("t2m", &[0], &[24], &t2m)?;
        ds.set_array_attribute("t2m", "units", Attr::String("degC".into()))?;
        ds.set_array_attribute(
            "t2m",
            "long_name",
            Attr::String("air temperature at 2 m".into()),
        )?;
        let syllables = 2 + (rng.next() * 2.0) as usize;
        let mut name: String = (0..syllables)
            .map(|_| SYLLABLES[(rng.next() * SYLLABLES.len() as f64) as usize])
            .collect();
        name[..1].make_ascii_uppercase();
        ds.set_attribute("station_name", Attr::String(name));
        ds.set_attribute(
            "country",
            Attr::String(COUNTRIES[(rng.next() * COUNTRIES.len() as f64) as usize].into()),
        );
        ds.set_attribute("elevation", Attr::Float64(elevation));
        ds.set_attribute("latitude", Attr::Float64((lat * 1e4).round() / 1e4));
        ds.set_attribute("longitude", Attr::Float64((lon * 1e4).round() / 1e4));
        coords(&mut ds, &["time"]);
        ds.finish()?;
    }
    writer.finish()?;
    Ok(())
}

/// Argo's fill for floats, as the NetCDF files carry it.
const ARGO_FILL: f32 = 99_999.0;

/// One Argo profile file, as atlas-python stores it: `N_PROF` = 1, so every
/// per-level variable is `[1, N_LEVELS]` and every per-profile one `[1]`.
fn argo_profile(writer: &AtlasWriter, k: usize, rng: &mut Rng) -> Res {
    let float = k / 8;
    let cycle = 1 + k % 8;
    let wmo = 6_903_000 + float * 11;
    let day = (float * 23 + cycle * 10) % 365;
    let time =
        JAN_1_2024 + day as i64 * NS_PER_DAY + (rng.range(0.0, 86_400.0) as i64) * 1_000_000_000;
    let (lat, lon) = loop {
        let (la, lo) = (rng.range(-65.0, 65.0), rng.range(-180.0, 180.0));
        if !is_land(lo, la) {
            break (la, lo);
        }
    };
    // The first profile has the 513 levels of the example.
    let n_levels = if k == 0 {
        513
    } else {
        60 + (rng.next() * 540.0) as usize
    };
    // The deepest few levels were not sampled: fill, as in real files.
    let sampled = n_levels - (rng.next() * 6.0) as usize;
    let bottom = rng.range(1000.0, 2000.0);
    let mixed = rng.range(20.0, 120.0);
    let (mut pres, mut temp, mut psal) = (
        vec![ARGO_FILL; n_levels],
        vec![ARGO_FILL; n_levels],
        vec![ARGO_FILL; n_levels],
    );
    for i in 0..sampled {
        let p = 4.0 + (bottom - 4.0) * i as f64 / (sampled - 1) as f64;
        pres[i] = p as f32;
        if rng.next() > 0.01 {
            temp[i] = (sea_temperature(lon, lat, day as f64, (p - mixed).max(0.0))
                + 0.04 * rng.normal()) as f32;
        }
        psal[i] =
            (34.3 + 0.8 * (-p / 600.0).exp() * lat.to_radians().cos() + 0.01 * rng.normal()) as f32;
    }

    let mut ds = writer.add_dataset(&format!("R{wmo}_{cycle:03}"))?;
    let n = n_levels as u64;
    let levels = || vec!["N_PROF".to_string(), "N_LEVELS".into()];
    for (name, values, units, long_name) in [
        (
            "PRES",
            &pres,
            "decibar",
            "Sea water pressure, equals 0 at sea-level",
        ),
        (
            "TEMP",
            &temp,
            "degree_Celsius",
            "Sea temperature in-situ ITS-90 scale",
        ),
        ("PSAL", &psal, "psu", "Practical salinity"),
    ] {
        ds.define_array::<f32>(
            name,
            levels(),
            &[1, n],
            None,
            Some(FillValue::Float(ARGO_FILL as f64)),
        )?;
        ds.write_array(name, &[0, 0], &[1, n], values)?;
        ds.set_array_attribute(name, "units", Attr::String(units.into()))?;
        ds.set_array_attribute(name, "long_name", Attr::String(long_name.into()))?;
    }
    ds.set_array_attribute("PRES", "axis", Attr::String("Z".into()))?;
    let prof = || vec!["N_PROF".to_string()];
    let nat = Some(FillValue::TimestampNs(i64::MIN));
    ds.define_array::<TimestampNs>("JULD", prof(), &[1], None, nat.clone())?;
    ds.write_array("JULD", &[0], &[1], &[TimestampNs(time)])?;
    ds.set_array_attribute("JULD", "standard_name", Attr::String("time".into()))?;
    // No position fix for every fifth profile: its time is the fill, NaT.
    let located = if k % 5 == 4 {
        i64::MIN
    } else {
        time + 1_800_000_000_000
    };
    ds.define_array::<TimestampNs>("JULD_LOCATION", prof(), &[1], None, nat)?;
    ds.write_array("JULD_LOCATION", &[0], &[1], &[TimestampNs(located)])?;
    for (name, value, units) in [
        ("LATITUDE", lat, "degree_north"),
        ("LONGITUDE", lon, "degree_east"),
    ] {
        ds.define_array::<f64>(name, prof(), &[1], None, Some(FillValue::Float(99_999.0)))?;
        ds.write_array(name, &[0], &[1], &[(value * 1e4).round() / 1e4])?;
        ds.set_array_attribute(name, "units", Attr::String(units.into()))?;
    }
    ds.define_array::<i32>(
        "CYCLE_NUMBER",
        prof(),
        &[1],
        None,
        Some(FillValue::Int(99_999)),
    )?;
    ds.write_array("CYCLE_NUMBER", &[0], &[1], &[cycle as i32])?;
    ds.define_array::<String>("PLATFORM_NUMBER", prof(), &[1], None, None)?;
    ds.write_array("PLATFORM_NUMBER", &[0], &[1], &[wmo.to_string()])?;

    ds.set_attribute("title", Attr::String("Argo float vertical profile".into()));
    ds.set_attribute("Conventions", Attr::String("Argo-3.1 CF-1.6".into()));
    ds.set_attribute("featureType", Attr::String("trajectoryProfile".into()));
    ds.set_attribute("platform_number", Attr::String(wmo.to_string()));
    ds.set_attribute("cycle_number", Attr::Int32(cycle as i32));
    coords(&mut ds, &["JULD", "LATITUDE", "LONGITUDE"]);
    ds.finish()?;
    Ok(())
}

/// A 15-minute global bathymetry grid (int16 metres, land positive):
/// 1440 columns, so the dashboard must read it in windows.
fn bathymetry(writer: &AtlasWriter) -> Res {
    const ROWS: usize = 720;
    const COLS: usize = 1440;
    let lat: Vec<f32> = (0..ROWS).map(|i| -89.875 + 0.25 * i as f32).collect();
    let lon: Vec<f32> = (0..COLS).map(|j| -179.875 + 0.25 * j as f32).collect();
    let mut elevation = vec![0i16; ROWS * COLS];
    for (i, &la) in lat.iter().enumerate() {
        for (j, &lo) in lon.iter().enumerate() {
            let (la, lo) = (la as f64, lo as f64);
            let ridge = 1500.0 * (-((lo + 30.0 + 10.0 * (la / 20.0).sin()) / 6.0).powi(2)).exp();
            let v = if is_land(lo, la) {
                300.0 + 1200.0 * ((lo / 9.0).sin() * (la / 7.0).cos()).abs()
            } else {
                -4200.0
                    + ridge
                    + 600.0 * (lo.to_radians() * 7.0).sin() * (la.to_radians() * 5.0).cos()
            };
            elevation[i * COLS + j] = v.round() as i16;
        }
    }
    let mut ds = writer.add_dataset("bathymetry_15min")?;
    for (name, values, units) in [
        ("lat", &lat, "degrees_north"),
        ("lon", &lon, "degrees_east"),
    ] {
        ds.define_array::<f32>(name, vec![name.into()], &[values.len() as u64], None, None)?;
        ds.write_array(name, &[0], &[values.len() as u64], values)?;
        ds.set_array_attribute(name, "units", Attr::String(units.into()))?;
    }
    let shape = [ROWS as u64, COLS as u64];
    ds.define_array::<i16>(
        "elevation",
        vec!["lat".into(), "lon".into()],
        &shape,
        Some(&[180, 360]),
        Some(FillValue::Int(-32768)),
    )?;
    ds.write_array("elevation", &[0, 0], &shape, &elevation)?;
    ds.set_array_attribute("elevation", "units", Attr::String("m".into()))?;
    ds.set_attribute(
        "title",
        Attr::String("Synthetic global relief, 15 arc-minutes".into()),
    );
    coords(&mut ds, &["lat", "lon"]);
    ds.finish()?;
    Ok(())
}

fn argo(dir: &Path) -> Res {
    let mut rng = Rng(0xA260_2024);
    let writer = AtlasWriter::create(dir, CONFIG)?;
    for k in 0..160 {
        argo_profile(&writer, k, &mut rng)?;
    }
    bathymetry(&writer)?;
    writer.finish()?;
    Ok(())
}

fn main() -> Res {
    let out = std::env::args()
        .nth(1)
        .ok_or("usage: make_sample OUT_DIR")?;
    let out = Path::new(&out);
    ocean(&out.join("ocean"))?;
    stations(&out.join("stations"))?;
    argo(&out.join("argo"))?;
    for name in ["ocean", "stations", "argo"] {
        let bytes = std::fs::metadata(out.join(name).join("data.atlas"))?.len();
        println!("{}: {bytes} bytes", out.join(name).display());
    }
    Ok(())
}
